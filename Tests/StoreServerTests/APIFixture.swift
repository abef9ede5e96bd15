import Foundation
import StoreCore
import StoreEngine
import StoreSigning
import StorefrontTestSupport
@testable import StoreServer

/// A store in memory and the API over it, called directly (no HTTP: that is `HTTPServer`'s to test).
struct APIFixture {
    let store: LocalAppStore
    let api: AppStoreServerAPI

    init(authorized: Bool = true) throws {
        var catalog = Repo.catalog
        catalog.settings.networkDelay = 0
        catalog.settings.gracePeriod = false
        store = try LocalAppStore(catalog: catalog, stateDirectory: nil, ledger: PostgresTestServer.defaultLedger(for: nil), time: ManualTime())
        api = AppStoreServerAPI(store: store, authenticate: { _ in authorized ? nil : HTTPResponse(status: 401) })
    }

    /// Buys as the customer would, in the app; returns the transaction's ID.
    @discardableResult
    func buy(_ productID: String) async throws -> Int64 {
        guard case .success(let jws) = try await store.purchase(productID, options: PurchaseOptions(), answer: .confirm) else {
            throw FixtureError("buying \(productID) did not succeed")
        }
        return try transactionID(jws)
    }

    func transactionID(_ jws: String) throws -> Int64 {
        guard let id = try payload(jws)["transactionId"]?.int64Value else { throw FixtureError("no transactionId in \(jws.prefix(40))…") }
        return id
    }

    func payload(_ jws: String) throws -> JSONValue {
        let result = JWSVerifier(trustedRoots: [store.certificate]).verify(jws, at: .signedDate)
        guard result.isVerified, let data = result.payload else { throw FixtureError("token does not verify: \(jws.prefix(40))…") }
        return try JSONParser.parse(data)
    }

    func get(_ path: String, _ query: [(String, String)] = []) async -> HTTPResponse {
        await api.respond(to: HTTPRequest(method: "GET", path: path, query: query.map { (name: $0.0, value: $0.1) }))
    }

    func put(_ path: String, _ body: String) async -> HTTPResponse {
        await api.respond(to: HTTPRequest(method: "PUT", path: path, body: Data(body.utf8)))
    }
}

struct FixtureError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

extension HTTPResponse {
    var json: JSONValue { (try? JSONParser.parse(body)) ?? .null }
    var errorCode: Int? { json["errorCode"]?.intValue }
}

extension JSONValue {
    var int64Value: Int64? {
        switch self {
        case .number(let n): Int64(n)
        case .string(let s): Int64(s)
        default: nil
        }
    }
}
