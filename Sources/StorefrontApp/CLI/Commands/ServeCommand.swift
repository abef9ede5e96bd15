import Dispatch
import Foundation
import StoreCore
import StoreEngine
import StoreServer

/// `storefront serve`: the App Store's server side for a team's backend, on the same state the
/// storefront uses (as another process on the ledger): the App Store Server API over HTTP, and
/// notifications delivered to `--notify`. Runs until Ctrl-C or SIGTERM.
enum ServeCommand {
    static let defaultPort: UInt16 = 8765

    static func run(_ options: CommandLineOptions) async throws -> Int32 {
        let (context, store, directory) = try await StoreContext.openSaved(options)
        let key = try APIKey.load(stateDirectory: directory)
        let authenticator = APIAuthenticator(key: key, bundleID: context.catalog.app.bundleID)
        let api = AppStoreServerAPI(store: store) { request in
            guard let failure = authenticator.check(request, now: Date()) else { return nil }
            log(request, failure.response.status, because: failure.description)
            return failure.response
        }
        let host = options.host ?? "127.0.0.1"
        TerminationSignal.install()
        let server: HTTPServer
        do {
            server = try HTTPServer.start(host: host, port: options.port ?? defaultPort) { request in
                let response = await api.respond(to: request)
                if response.status != 401 { log(request, response.status) }
                return response
            }
        } catch {
            await store.shutdown()
            throw UsageError(description: error.description)
        }
        // Notifications go to the backend (`--notify`, the catalog's or the QA panel's URL) as the store makes them.
        let notifier = NotificationDispatcher(store: store)
        await notifier.start()
        let ticker = Task {
            // Renewals, billing retries and expiries fall due while serving, and become notifications.
            while !Task.isCancelled {
                await store.tick()
                try? await Task.sleep(for: .milliseconds(250))
            }
        }
        say("""
            Serving the App Store Server API for \(context.catalog.app.bundleID) at \(server.baseURL)
              state:   \(directory)
              API key: key ID \(key.keyID), issuer ID \(key.issuerID), private key \(key.privateKeyPath ?? "?")
              trust:   storefront cert --state \(directory)
              notify:  \(await store.settings().notificationURL.map(TestSettings.redacted) ?? "no URL (--notify URL, or the QA panel's Notification URL)")
            Ctrl-C stops.
            """)
        if server.isEveryInterface {
            say("Warning: --host \(host) listens on every interface: anyone who can reach this machine's port \(server.port) can call it, and the API key is the only guard.")
        }
        let signal = await TerminationSignal.wait()
        ticker.cancel()
        await ticker.value
        await server.stop()
        await notifier.stop()
        await store.shutdown()
        say("Stopped (\(signal == SIGINT ? "Ctrl-C" : "SIGTERM")).")
        return 0
    }
}

/// One line a request, for the tester watching their backend call in: "GET /inApps/v1/… → 200".
/// The method, path and reason (which quotes the token's claims) are the client's: escaped.
func logLine(_ request: HTTPRequest, _ status: Int, because reason: String? = nil) -> String {
    "\(LogText.escaped(request.method)) \(LogText.escaped(request.path)) → \(status)" + (reason.map { " (\(LogText.escaped($0)))" } ?? "")
}

private func log(_ request: HTTPRequest, _ status: Int, because reason: String? = nil) {
    say(logLine(request, status, because: reason))
}

/// A line on standard output, written at once (a log read through a pipe must not wait for a buffer).
private func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// SIGINT and SIGTERM, taken from their default action (ending the process mid-write). `install()` runs
/// before the banner says the server is up, and a handler installed by `sigaction` is in force at once,
/// so a signal sent on reading the banner is never lost (a dispatch signal source registers later, on
/// its own thread: under load a SIGTERM sent meanwhile was ignored, and `serve` never stopped).
enum TerminationSignal {
    /// The pipe's write end, for the handler (which can capture nothing). Set once, before the handlers
    /// that read it are installed, and never again: no data race.
    nonisolated(unsafe) private static var writeFD: Int32 = -1
    nonisolated(unsafe) private static var readFD: Int32 = -1

    static func install() {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return }
        (readFD, writeFD) = (fds[0], fds[1])
        for number in [SIGINT, SIGTERM] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { sig in
                var byte = UInt8(truncatingIfNeeded: sig)
                _ = write(TerminationSignal.writeFD, &byte, 1)
            }
            sigaction(number, &action, nil)
        }
    }

    /// The first termination signal since `install()`.
    static func wait() async -> Int32 {
        let fd = readFD
        return await withCheckedContinuation { continuation in
            Thread {
                var byte: UInt8 = 0
                while read(fd, &byte, 1) < 0, errno == EINTR {}
                continuation.resume(returning: Int32(byte))
            }.start()
        }
    }
}
