import Foundation
import Testing
import StoreCore
@testable import StoreServer

/// The realtime request to a backend's Get Retention Message endpoint: its JSON answer, or nil when
/// it fails or is slower than Apple's 700 ms.
@Suite struct RealtimeRetentionTests {
    @Test("the backend's JSON answer comes back; an error status or a slow answer is nil, so the default message shows")
    func answerErrorAndSlowness() async throws {
        let server = try HTTPServer.start(port: 0) { request in
            switch request.path {
            case "/ok":
                let signed = (try? JSONParser.parse(request.body))?["signedPayload"]?.stringValue ?? ""
                return .json(200, #"{"message":{"messageIdentifier":"\#(signed)"}}"#)
            case "/slow":
                try? await Task.sleep(for: .seconds(3))
                return .json(200, "{}")  // JSON: only the timeout makes the answer nil
            default:
                return .json(500, "{}")
            }
        }
        // A generous limit here: a loaded test machine must not turn a quick answer into a slow one.
        let answer = await RealtimeRetention.ask(url: server.baseURL + "/ok", signedPayload: "p.q.r", timeout: 15)
        #expect(answer?["message"]?["messageIdentifier"]?.stringValue == "p.q.r")
        #expect(await RealtimeRetention.ask(url: server.baseURL + "/fail", signedPayload: "x", timeout: 15) == nil)
        #expect(await RealtimeRetention.ask(url: server.baseURL + "/slow", signedPayload: "x") == nil, "given up after about 700 ms")
        await server.stop()
    }
}
