import Foundation
import StoreCore
import StoreEngine
import StoreSigning

/// The Retention Messaging API: images, messages, default messages by product and locale, and the
/// realtime URL, kept in the store (`ServerRecordKind`). The App Store reviews what is uploaded;
/// the local store approves it at once.
extension AppStoreServerAPI {
    static let approved: JSONValue = .string("APPROVED")

    // MARK: Images

    func uploadImage(_ text: String, _ request: HTTPRequest) async throws -> HTTPResponse {
        let id = try Self.identifier(text)
        let size = request.queryValues("imageSize").last ?? "FULL_SIZE"
        guard size == "FULL_SIZE" || size == "BULLET_POINT" else { throw APIError.badImageSize() }
        guard request.body.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else { throw APIError.invalidImage() }
        guard await store.serverRecord(.image, id: id) == nil else { throw APIError.imageAlreadyExists() }
        let image: JSONValue = ["imageSize": .string(size), "png": .string(request.body.base64EncodedString())]
        try await store.putServerRecord(.image, id: id, value: image.compact)
        return Self.done
    }

    func deleteImage(_ text: String) async throws -> HTTPResponse {
        let id = try Self.identifier(text)
        guard await store.serverRecord(.image, id: id) != nil else { throw APIError.imageNotFound() }
        let messages = await store.serverRecords(.message).compactMap { try? JSONParser.parse($0.value) }
        guard !messages.contains(where: { Self.images(of: $0).contains(id) }) else { throw APIError.imageInUse() }
        _ = try await store.deleteServerRecord(.image, id: id)
        return Self.done
    }

    func imageList() async -> HTTPResponse {
        let items: [JSONValue] = await store.serverRecords(.image).map { record in
            let size = (try? JSONParser.parse(record.value))?["imageSize"] ?? .string("FULL_SIZE")
            return ["imageIdentifier": .string(record.id), "imageState": Self.approved, "imageSize": size]
        }
        return ok(["imageIdentifiers": .array(items)] as JSONValue)
    }

    // MARK: Messages

    func uploadMessage(_ text: String, _ request: HTTPRequest) async throws -> HTTPResponse {
        let id = try Self.identifier(text)
        let body = try Self.jsonObject(request)
        guard let header = body["header"]?.stringValue, header.count <= 66 else { throw APIError.headerTooLong() }
        guard let message = body["body"]?.stringValue, message.count <= 144 else { throw APIError.bodyTooLong() }
        if let image = body["image"] { try Self.checkImageReference(image) }
        if let position = body["headerPosition"] {
            guard position == .string("ABOVE_BODY") || position == .string("ABOVE_IMAGE") else { throw APIError.body("headerPosition must be ABOVE_BODY or ABOVE_IMAGE") }
            if position == .string("ABOVE_IMAGE"), body["image"] == nil { throw APIError.aboveImageRequiresAnImage() }
        }
        if let bullets = body["bulletPoints"] {
            guard case .array(let points) = bullets else { throw APIError.body("bulletPoints must be an array") }
            guard points.count <= 5 else { throw APIError.tooManyBulletPoints() }
            for point in points {
                guard let text = point["text"]?.stringValue, text.count <= 66 else { throw APIError.bulletPointTextTooLong() }
                try Self.checkImageReference(point)
            }
        }
        for image in Self.images(of: body) where await store.serverRecord(.image, id: image) == nil { throw APIError.imageNotFound() }
        guard await store.serverRecord(.message, id: id) == nil else { throw APIError.messageAlreadyExists() }
        try await store.putServerRecord(.message, id: id, value: body.compact)
        return Self.done
    }

    func deleteMessage(_ text: String) async throws -> HTTPResponse {
        guard try await store.deleteServerRecord(.message, id: try Self.identifier(text)) else { throw APIError.messageNotFound() }
        return Self.done
    }

    func messageList() async -> HTTPResponse {
        let items: [JSONValue] = await store.serverRecords(.message).map { ["messageIdentifier": .string($0.id), "messageState": Self.approved] }
        return ok(["messageIdentifiers": .array(items)] as JSONValue)
    }

    // MARK: Default messages

    func configureDefaultMessage(_ productID: String, _ locale: String, _ request: HTTPRequest) async throws -> HTTPResponse {
        let key = try await defaultKey(productID, locale)
        guard let message = try Self.jsonObject(request)["messageIdentifier"]?.stringValue.flatMap({ try? Self.identifier($0) }),
              await store.serverRecord(.message, id: message) != nil else { throw APIError.messageNotFound() }
        try await store.putServerRecord(.defaultMessage, id: key, value: message)
        return Self.done
    }

    func defaultMessage(_ productID: String, _ locale: String) async throws -> HTTPResponse {
        guard let message = await store.serverRecord(.defaultMessage, id: try await defaultKey(productID, locale)) else {
            throw APIError.defaultMessageNotFound()
        }
        return ok(["messageIdentifier": .string(message)] as JSONValue)
    }

    func deleteDefaultMessage(_ productID: String, _ locale: String) async throws -> HTTPResponse {
        guard try await store.deleteServerRecord(.defaultMessage, id: try await defaultKey(productID, locale)) else {
            throw APIError.defaultMessageNotFound()
        }
        return Self.done
    }

    /// A default message belongs to an auto-renewable subscription and a locale (`en-US`, `zh-Hans-CN`).
    func defaultKey(_ productID: String, _ locale: String) async throws -> String {
        guard await store.catalog.product(productID)?.subscription != nil else { throw APIError.invalidProductID() }
        guard locale.wholeMatch(of: /[a-z]{2,3}(-[A-Z][a-z]{3})?(-[A-Z]{2})?/) != nil else { throw APIError.invalidLocale() }
        return productID + "/" + locale
    }

    // MARK: Realtime URL

    func configureRealtimeURL(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let text = try Self.jsonObject(request)["realtimeURL"]?.stringValue, text.count <= 256,
              let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased()), url.host?.isEmpty == false
        else { throw APIError.badRealtimeURL() }
        try await store.putServerRecord(.realtimeURL, id: "", value: text)
        return Self.done
    }

    func realtimeURL() async throws -> HTTPResponse {
        guard let url = await store.serverRecord(.realtimeURL, id: "") else { throw APIError.realtimeURLNotFound() }
        return ok(["realtimeURL": .string(url)] as JSONValue)
    }

    func deleteRealtimeURL() async throws -> HTTPResponse {
        guard try await store.deleteServerRecord(.realtimeURL, id: "") else { throw APIError.realtimeURLNotFound() }
        return Self.done
    }

    // MARK: Helpers

    /// Images and messages are named by UUIDs the backend chooses, kept in lower case.
    static func identifier(_ text: String) throws(APIError) -> String {
        guard let uuid = UUID(uuidString: text) else { throw .body("\(text) is not a UUID") }
        return uuid.uuidString.lowercased()
    }

    /// An image reference (a message's image or a bullet point's): a UUID and alt text of at most 150 characters.
    static func checkImageReference(_ value: JSONValue) throws {
        guard value["imageIdentifier"]?.stringValue.flatMap(UUID.init(uuidString:)) != nil else { throw APIError.imageNotFound() }
        guard let alt = value["altText"]?.stringValue, alt.count <= 150 else { throw APIError.altTextTooLong() }
    }

    /// The images a message shows (its own and its bullet points').
    static func images(of message: JSONValue) -> [String] {
        var references = [message["image"]].compactMap { $0 }
        if case .array(let points)? = message["bulletPoints"] { references += points }
        return references.compactMap { $0["imageIdentifier"]?.stringValue.flatMap { try? identifier($0) } }
    }
}
