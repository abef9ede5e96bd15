import Foundation
import Testing
@testable import StoreServer

@Suite struct HTTPMessageTests {
    @Test func jsonResponsesSayTheyAreJSON() {
        let response = HTTPResponse.json(404, #"{"errorCode":4040010}"#)
        #expect(response.headers["content-type"] == "application/json")
        #expect(response.status == 404)
    }

    @Test func repeatedQueryArgumentsKeepEveryValue() {
        let request = HTTPRequest(method: "GET", path: "/", query: [("productId", "a"), ("sort", "ASCENDING"), ("productId", "b")])
        #expect(request.queryValues("productId") == ["a", "b"])
    }
}
