import Foundation

/// StoreKit's `AppTransaction`: the signed record of the customer's purchase of the app itself.
public struct AppTransactionPayload: Hashable, Sendable {
    public var appTransactionID: String
    public var bundleID: String
    public var appVersion: String
    public var originalAppVersion: String
    public var originalPurchaseDate: Date
    /// iOS, macOS, tvOS or visionOS.
    public var originalPlatform: String
    /// `receiptType`: Sandbox, Production, Xcode or LocalTesting.
    public var environment: String = StoreEnvironment.standard.rawValue
    /// The app's Apple ID; Apple's verifier checks it in Production.
    public var appAppleID: Int64?
    public var preorderDate: Date?
    public var versionExternalIdentifier: Int64?
    public var deviceVerification: String
    public var deviceVerificationNonce: UUID
    public var signedDate: Date

    public init(appTransactionID: String, bundleID: String, appVersion: String, originalAppVersion: String,
                originalPurchaseDate: Date, originalPlatform: String, deviceVerification: String,
                deviceVerificationNonce: UUID, signedDate: Date) {
        self.appTransactionID = appTransactionID
        self.bundleID = bundleID
        self.appVersion = appVersion
        self.originalAppVersion = originalAppVersion
        self.originalPurchaseDate = originalPurchaseDate
        self.originalPlatform = originalPlatform
        self.deviceVerification = deviceVerification
        self.deviceVerificationNonce = deviceVerificationNonce
        self.signedDate = signedDate
    }

    public var json: JSONValue {
        var members: [(String, JSONValue)] = [
            ("appTransactionId", .string(appTransactionID)), ("bundleId", .string(bundleID)),
            ("applicationVersion", .string(appVersion)), ("originalApplicationVersion", .string(originalAppVersion)),
            ("originalPurchaseDate", .ms(originalPurchaseDate)), ("originalPlatform", .string(originalPlatform)),
            ("receiptType", .string(environment)), ("environment", .string(environment)),
            ("deviceVerification", .string(deviceVerification)),
            ("deviceVerificationNonce", .string(deviceVerificationNonce.uuidString.lowercased())),
            ("receiptCreationDate", .ms(signedDate)), ("signedDate", .ms(signedDate)),
        ]
        if let id = appAppleID { members.append(("appAppleId", .number(String(id)))) }
        if let date = preorderDate { members.append(("preorderDate", .ms(date))) }
        if let id = versionExternalIdentifier { members.append(("versionExternalIdentifier", .number(String(id)))) }
        return .object(members.map { (key: $0.0, value: $0.1) })
    }

    public init?(json: JSONValue) {
        guard let id = json["appTransactionId"]?.stringValue, let bundle = json["bundleId"]?.stringValue,
              let original = json["originalApplicationVersion"]?.stringValue, let purchased = json["originalPurchaseDate"]?.date,
              let signed = json["signedDate"]?.date else { return nil }
        self.init(appTransactionID: id, bundleID: bundle, appVersion: json["applicationVersion"]?.stringValue ?? "",
                  originalAppVersion: original, originalPurchaseDate: purchased,
                  originalPlatform: json["originalPlatform"]?.stringValue ?? "iOS",
                  deviceVerification: json["deviceVerification"]?.stringValue ?? "",
                  deviceVerificationNonce: json["deviceVerificationNonce"]?.stringValue.flatMap(UUID.init(text:)) ?? UUID(),
                  signedDate: signed)
        environment = json["receiptType"]?.stringValue ?? json["environment"]?.stringValue ?? ""
        appAppleID = json["appAppleId"]?.int64Text
        preorderDate = json["preorderDate"]?.date
        versionExternalIdentifier = json["versionExternalIdentifier"]?.int64Text
    }

    /// Compares dotted version strings numerically ("1.10" > "1.9"), for migration checks like
    /// "bought before 2.0 → grant premium".
    public static func version(_ a: String, isBefore b: String) -> Bool {
        let x = a.split(separator: ".").map { Int($0) ?? 0 }, y = b.split(separator: ".").map { Int($0) ?? 0 }
        for i in 0..<max(x.count, y.count) {
            let l = i < x.count ? x[i] : 0, r = i < y.count ? y[i] : 0
            if l != r { return l < r }
        }
        return false
    }
}
