import Foundation
import StoreSigning

/// A program ending while other threads still use libcrypto, as the storefront does when it quits
/// with a refresh or a notification's signature under way: two threads sign and verify JWSs until
/// the process exits, which it does from the main thread once both are running.
enum ExitWhileSigning {
    static func run() -> Never {
        do {
            let key = try SigningKey.generate()
            let certificate = try Certificate.selfSigned(key: key, commonName: "exit test")
            let signer = try JWSSigner(key: key, chain: [certificate])
            let verifier = JWSVerifier(trustedRoots: [certificate])
            let running = DispatchSemaphore(value: 0)
            for _ in 0..<2 {
                Thread.detachNewThread {
                    running.signal()
                    while true {
                        guard let token = try? signer.sign(payload: Data(#"{"n":1}"#.utf8)) else { continue }
                        _ = verifier.verify(token, at: .now)
                    }
                }
            }
            running.wait()
            running.wait()
            usleep(20_000)
            exit(0)
        } catch {
            fail("\(error)")
        }
    }
}
