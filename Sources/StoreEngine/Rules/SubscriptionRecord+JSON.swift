import Foundation
import StoreCore

extension SubscriptionRecord {
    /// The record as `JSONEncoder` writes it, so `JSONDecoder` reads it back, made without it: encoding
    /// a thousand records took longer than writing them at the end of a simulated year.
    var json: JSONValue {
        func number(_ value: some BinaryInteger) -> JSONValue { .number(String(value)) }
        func date(_ date: Date) -> JSONValue { .number(String(date.timeIntervalSinceReferenceDate)) }  // as `Date.encode(to:)`
        var m: [(key: String, value: JSONValue)] = [
            ("originalID", number(originalID)), ("groupID", .string(groupID)), ("productID", .string(productID)),
            ("autoRenewProductID", .string(autoRenewProductID)), ("willAutoRenew", .bool(willAutoRenew)),
            ("latestTransactionID", number(latestTransactionID)), ("expirationDate", date(expirationDate)),
            ("state", .string(state.rawValue)),
        ]
        if let expirationReason { m.append(("expirationReason", number(expirationReason.rawValue))) }
        if let gracePeriodEnd { m.append(("gracePeriodEnd", date(gracePeriodEnd))) }
        if let billingRetryEnd { m.append(("billingRetryEnd", date(billingRetryEnd))) }
        if let priceIncrease { m.append(("priceIncrease", .string(priceIncrease.rawValue))) }
        if let increasedPriceMilliunits { m.append(("increasedPriceMilliunits", number(increasedPriceMilliunits))) }
        m += [("familyShared", .bool(familyShared)), ("recentStartDate", date(recentStartDate))]
        if let anchorDay { m.append(("anchorDay", number(anchorDay))) }
        if let appAccountToken { m.append(("appAccountToken", .string(appAccountToken.uuidString))) }
        if let offer {
            var o: [(key: String, value: JSONValue)] = [("type", .string(offer.type.rawValue))]
            if let id = offer.id { o.append(("id", .string(id))) }
            o += [("period", .string(offer.period.iso)), ("priceMilliunits", number(offer.priceMilliunits)),
                  ("remainingPeriods", number(offer.remainingPeriods))]
            if let productID = offer.productID { o.append(("productID", .string(productID))) }
            m.append(("offer", .object(o)))
        }
        if let billingPlan { m.append(("billingPlan", .string(billingPlan.rawValue))) }
        if let introOfferReceived { m.append(("introOfferReceived", .bool(introOfferReceived))) }
        if let renewals { m.append(("renewals", number(renewals))) }
        return .object(m)
    }

    /// A record as `json` writes it, and as `JSONEncoder` wrote the rows before it, read without
    /// `JSONDecoder` (which took most of reading a thousand records, at launch and after another
    /// process's commit). It reads what `JSONDecoder` reads: every key but the optional ones
    /// required, an optional one absent or null, unknown keys ignored. Throws the first key it cannot read.
    init(json: JSONValue) throws(RecordFieldError) {
        let f = RecordFields(json: json)
        originalID = try f.required("originalID", RecordFields.int64)
        groupID = try f.required("groupID", \.stringValue)
        productID = try f.required("productID", \.stringValue)
        autoRenewProductID = try f.required("autoRenewProductID", \.stringValue)
        willAutoRenew = try f.required("willAutoRenew", \.boolValue)
        latestTransactionID = try f.required("latestTransactionID", RecordFields.int64)
        expirationDate = try f.required("expirationDate", RecordFields.date)
        state = try f.required("state", RecordFields.raw(SubscriptionState.init(rawValue:)))
        expirationReason = try f.optional("expirationReason") { RecordFields.int($0).flatMap(RenewalInfoPayload.ExpirationReason.init(rawValue:)) }
        gracePeriodEnd = try f.optional("gracePeriodEnd", RecordFields.date)
        billingRetryEnd = try f.optional("billingRetryEnd", RecordFields.date)
        priceIncrease = try f.optional("priceIncrease", RecordFields.raw(PriceIncrease.init(rawValue:)))
        increasedPriceMilliunits = try f.optional("increasedPriceMilliunits", RecordFields.int64)
        familyShared = try f.required("familyShared", \.boolValue)
        recentStartDate = try f.required("recentStartDate", RecordFields.date)
        anchorDay = try f.optional("anchorDay", RecordFields.int)
        appAccountToken = try f.optional("appAccountToken", RecordFields.raw(UUID.init(text:)))
        offer = try f.optional("offer") { value throws(RecordFieldError) in
            guard case .object = value else { return nil }
            let o = RecordFields(json: value, path: "offer.")
            return CarriedOffer(type: try o.required("type", RecordFields.raw(OfferType.init(rawValue:))), id: try o.optional("id", \.stringValue),
                                period: try o.required("period", RecordFields.raw(Period.init(iso:))),
                                priceMilliunits: try o.required("priceMilliunits", RecordFields.int64),
                                remainingPeriods: try o.required("remainingPeriods", RecordFields.int),
                                productID: try o.optional("productID", \.stringValue))
        }
        billingPlan = try f.optional("billingPlan", RecordFields.raw(BillingPlanType.init(rawValue:)))
        introOfferReceived = try f.optional("introOfferReceived", \.boolValue)
        renewals = try f.optional("renewals", RecordFields.int)
    }
}

/// Which key of a stored subscription record cannot be read, and why.
struct RecordFieldError: Error, Equatable, CustomStringConvertible {
    var key: String
    var problem: String
    var description: String { "\(key) \(problem)" }
}

/// The members of a record's JSON object, read as `JSONDecoder` reads the synthesized `Codable` record.
private struct RecordFields {
    let json: JSONValue
    var path = ""

    func required<T>(_ key: String, _ read: (JSONValue) throws(RecordFieldError) -> T?) throws(RecordFieldError) -> T {
        guard let value = json[key] else { throw RecordFieldError(key: path + key, problem: "is missing") }
        if case .null = value { throw RecordFieldError(key: path + key, problem: "is null") }
        guard let read = try read(value) else { throw RecordFieldError(key: path + key, problem: "is \(value.kindName), not what it should hold") }
        return read
    }

    func optional<T>(_ key: String, _ read: (JSONValue) throws(RecordFieldError) -> T?) throws(RecordFieldError) -> T? {
        guard let value = json[key] else { return nil }
        if case .null = value { return nil }
        guard let read = try read(value) else { throw RecordFieldError(key: path + key, problem: "is \(value.kindName), not what it should hold") }
        return read
    }

    static func int64(_ value: JSONValue) -> Int64? { if case .number(let n) = value { Int64(n) } else { nil } }
    static func int(_ value: JSONValue) -> Int? { if case .number(let n) = value { Int(n) } else { nil } }
    /// As `Date.encode(to:)` writes it: seconds since the reference date.
    static func date(_ value: JSONValue) -> Date? {
        if case .number(let n) = value { Double(n).map(Date.init(timeIntervalSinceReferenceDate:)) } else { nil }
    }
    /// A value made from a string (a raw value, a UUID, an ISO period).
    static func raw<T>(_ make: @escaping (String) -> T?) -> (JSONValue) -> T? { { $0.stringValue.flatMap(make) } }
}
