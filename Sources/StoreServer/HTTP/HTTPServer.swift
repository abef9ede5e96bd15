import CMicroHTTPD
import Dispatch
import Foundation
import Locking

/// An HTTP/1.1 server over libmicrohttpd (MHD): MHD reads, parses and bounds every request; an
/// `HTTPHandler` answers it.
///
/// How the C callbacks meet the async handler: MHD runs one thread per connection (at most
/// `Limits.maximumConnections`). Once a request is complete, that thread starts the handler in a
/// `Task` whose executor is the thread itself (`ConnectionExecutor`): it runs the handler's jobs
/// until the handler answers, `Limits.handlerTimeout` passes, or the server stops. So the server
/// never waits for the cooperative pool, which blocking work elsewhere in the process (two
/// threads on two cores) can starve, and MHD's rule that a response is queued from the
/// connection's own thread holds without suspend/resume. The per-request state lives only on that
/// thread; what crosses into the Task is the Sendable `HTTPRequest`.
public final class HTTPServer: Sendable {
    public struct Limits: Sendable, Equatable {
        /// A larger declared body gets 413 before it is read; a larger chunked body drops the connection.
        public var maximumBodyBytes = 1 << 20
        /// MHD's per-connection memory: the request line and headers must fit (else MHD answers 431).
        public var maximumHeaderBytes = 32 << 10
        /// A query of more arguments gets 400 (each takes room in MHD's per-connection memory, and
        /// running out of it closed the connection unanswered); Apple's endpoints take a few.
        public var maximumQueryArguments = 100
        /// Connections beyond these are answered 429 (Apple's errorCode 4290000) once their headers are
        /// in; beyond twice these, closed on accept. On loopback every client is one IP, so one address
        /// may hold a backend's pool of 64 connections (32 turned half of 64 loopback clients away).
        public var maximumConnections = 128
        public var maximumConnectionsPerIP = 64
        /// Seconds a connection may stay silent (before or between requests) before MHD drops it.
        public var connectionTimeout = 15
        /// Seconds a request may take to arrive whole (request line, headers, body), however steadily
        /// it trickles in; then the connection is closed. Also how long a kept-alive connection idles.
        public var requestTimeout: Double = 10
        /// Seconds the handler may take before the client gets 500 (the handler is cancelled);
        /// under Apple's client's own 30 s, so it sees the 500 rather than a timeout of its own.
        public var handlerTimeout: Double = 20

        public init() {}
        public static let `default` = Limits()

        /// What is wrong with these limits, if anything: every one must be positive.
        var problem: String? {
            let named = [("maximumBodyBytes", maximumBodyBytes), ("maximumHeaderBytes", maximumHeaderBytes), ("maximumQueryArguments", maximumQueryArguments),
                         ("maximumConnections", maximumConnections), ("maximumConnectionsPerIP", maximumConnectionsPerIP),
                         ("connectionTimeout", connectionTimeout)]
            if let (name, value) = named.first(where: { $0.1 <= 0 || $0.1 > Int(UInt32.max) }) { return "\(name) must be positive, not \(value)" }
            if !(requestTimeout > 0) { return "requestTimeout must be positive, not \(requestTimeout)" }
            return handlerTimeout > 0 ? nil : "handlerTimeout must be positive, not \(handlerTimeout)"
        }
    }

    /// Why the server did not start; names the host and port.
    public struct StartError: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    public let host: String
    /// The port it listens on (the one the system chose when started with port 0).
    public let port: UInt16
    /// Whether it listens on every interface (`--host 0.0.0.0`, `::`): then anyone on the network can connect.
    public let isEveryInterface: Bool
    /// `http://127.0.0.1:8080`, `http://[::1]:8080`: what a client's base URL is.
    public var baseURL: String { "http://" + ListenSocket.endpoint(host, port) }
    private let core: ServerCore
    private let state: Locked<State>

    private enum State {
        case running(Daemon)
        case stopping(Task<Void, Never>)
    }

    /// An MHD daemon pointer. Sendable because MHD allows `MHD_stop_daemon` from any thread, and the
    /// pointer is taken out of `state` exactly once, by whoever stops the server.
    private struct Daemon: @unchecked Sendable { let pointer: OpaquePointer }

    private init(host: String, socket: ListenSocket, core: ServerCore, daemon: Daemon) {
        self.host = host
        self.port = socket.port
        self.isEveryInterface = socket.isEveryInterface
        self.core = core
        state = Locked(.running(daemon))
    }

    /// Starts serving `host` (loopback by default) on `port` (0: any free port).
    public static func start(host: String = "127.0.0.1", port: UInt16, limits: Limits = .default,
                             handler: @escaping HTTPHandler) throws(StartError) -> HTTPServer {
        if let problem = limits.problem { throw StartError("cannot start the HTTP server on \(ListenSocket.endpoint(host, port)): \(problem)") }
        let socket = try ListenSocket.open(host: host, port: port)
        let core = ServerCore(handler: handler, limits: limits)
        let context = Unmanaged.passRetained(core)  // released once the daemon has stopped
        let hardLimits = ConnectionGuard.hardLimits(limits)
        let options: [MHD_OptionItem] = [
            .init(option: MHD_OPTION.LISTEN_SOCKET, value: Int(socket.descriptor), ptr_value: nil),
            .init(option: MHD_OPTION.CONNECTION_MEMORY_LIMIT, value: limits.maximumHeaderBytes, ptr_value: nil),
            .init(option: MHD_OPTION.CONNECTION_LIMIT, value: hardLimits.total, ptr_value: nil),
            .init(option: MHD_OPTION.PER_IP_CONNECTION_LIMIT, value: hardLimits.perIP, ptr_value: nil),
            .init(option: MHD_OPTION.CONNECTION_TIMEOUT, value: limits.connectionTimeout, ptr_value: nil),
            .init(option: MHD_OPTION.URI_LOG_CALLBACK, value: unsafeBitCast(requestBegan, to: Int.self), ptr_value: context.toOpaque()),
            .init(option: MHD_OPTION.NOTIFY_COMPLETED, value: unsafeBitCast(requestEnded, to: Int.self), ptr_value: context.toOpaque()),
            .init(option: MHD_OPTION.NOTIFY_CONNECTION, value: unsafeBitCast(connectionChanged, to: Int.self), ptr_value: context.toOpaque()),
            .init(option: MHD_OPTION.END, value: 0, ptr_value: nil),
        ]
        // Poll, not select: select cannot watch descriptors above 1023.
        var flags = MHD_USE_THREAD_PER_CONNECTION.rawValue | MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_POLL.rawValue
        if socket.isIPv6 { flags |= MHD_USE_IPv6.rawValue }
        let daemon = options.withUnsafeBufferPointer { items in
            withVaList([Int32(MHD_OPTION.ARRAY.rawValue), OpaquePointer(items.baseAddress!), Int32(MHD_OPTION.END.rawValue)]) {
                MHD_start_daemon_va(flags, 0, nil, nil, accessHandler, context.toOpaque(), $0)
            }
        }
        guard let daemon else {
            // Not closed here: MHD closes a listening socket it was given on most of its failure
            // paths, and closing a descriptor twice could close another thread's file.
            core.connections.stop()
            context.release()
            throw StartError("cannot start the HTTP server on \(ListenSocket.endpoint(host, socket.port)) (libmicrohttpd refused the options)")
        }
        return HTTPServer(host: host, socket: socket, core: core, daemon: Daemon(pointer: daemon))
    }

    /// Stops waiting for handlers still running, closes every connection (a request in flight gets
    /// no answer, or a 503 if it is quick) and waits for MHD's threads to end. Calling it again (even
    /// concurrently) waits for the same shutdown.
    public func stop() async {
        let shutdown = state.withLock { state -> Task<Void, Never> in
            switch state {
            case .stopping(let task): return task
            case .running(let daemon):
                let core = self.core
                let task = Task.detached { await Self.shutDown(daemon, core) }
                state = .stopping(task)
                return task
            }
        }
        await shutdown.value
    }

    /// A server dropped without `stop()` stops here, blocking until MHD's threads end.
    deinit {
        if case .running(let daemon) = state.withLock({ $0 }) { Self.shutDownNow(daemon, core) }
    }

    private static func shutDown(_ daemon: Daemon, _ core: ServerCore) async {
        // MHD_stop_daemon joins threads: done on a thread of its own, not the cooperative pool.
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread { shutDownNow(daemon, core); done.resume() }.start()
        }
    }

    private static func shutDownNow(_ daemon: Daemon, _ core: ServerCore) {
        core.stopWaiting()  // so no connection thread is left blocked for MHD to join
        MHD_stop_daemon(daemon.pointer)
        core.connections.stop()
        Unmanaged.passUnretained(core).release()  // the reference `start` retained for MHD
    }
}

// MARK: - The callbacks

/// MHD's `uri_log_callback`: called once per request with the raw request target, before MHD
/// percent-decodes the path; what it returns is the request's `con_cls`, released in `requestEnded`.
/// A query of too many arguments is emptied here, in MHD's buffer, which MHD parses the arguments
/// from after this call: so they take no memory, and the request gets its 400.
private let requestBegan: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, OpaquePointer?) -> UnsafeMutableRawPointer? = { cls, uri, _ in
    let state = RequestState(target: uri.map { String(cString: $0) } ?? "/")
    if let cls, let uri, let question = strchr(uri, Int32(UInt8(ascii: "?"))) {
        let limit = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue().limits.maximumQueryArguments
        var arguments = 1, next = question + 1
        while next.pointee != 0 && arguments <= limit {
            if next.pointee == CChar(UInt8(ascii: "&")) { arguments += 1 }
            next += 1
        }
        if arguments > limit {
            question[1] = 0
            state.hasTooManyArguments = true
        }
    }
    return Unmanaged.passRetained(state).toOpaque()
}

private let requestEnded: MHD_RequestCompletedCallback = { cls, connection, context, _ in
    if let connection { ConnectionGuard.entry(connection)?.answered() }
    guard let context, let state = context.pointee else { return }
    Unmanaged<RequestState>.fromOpaque(state).release()
    context.pointee = nil
}

private let connectionChanged: MHD_NotifyConnectionCallback = { cls, connection, context, code in
    guard let cls, let connection, let context else { return }
    let connections = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue().connections
    // 0 is MHD_CONNECTION_NOTIFY_STARTED, whose name does not import; the other code is CLOSED.
    if code.rawValue == 0 {
        context.pointee = connections.opened(connection)
    } else if let entry = context.pointee {
        connections.closed(entry)
        context.pointee = nil
    }
}

private let accessHandler: MHD_AccessHandlerCallback = { cls, connection, _, method, _, upload, uploadSize, context in
    guard let cls, let connection, let method, let uploadSize, let state = context?.pointee else { return .NO }
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    let request = Unmanaged<RequestState>.fromOpaque(state).takeUnretainedValue()
    return core.advance(request, on: connection, method: String(cString: method), upload: upload, uploadSize: uploadSize)
}

/// One request as it arrives, touched only by its connection's thread (MHD calls every callback of
/// a connection on that connection's thread), so it needs no lock and never crosses to a Task.
private final class RequestState {
    let target: String
    var headersSeen = false
    var hasTooManyArguments = false
    var body = Data()
    init(target: String) { self.target = target }
}

/// What the callbacks share: the handler, the limits and the requests waiting for the handler.
private final class ServerCore: Sendable {
    let handler: HTTPHandler
    let limits: HTTPServer.Limits
    let connections: ConnectionGuard
    private let waiting = Locked<(stopping: Bool, executors: [ObjectIdentifier: ConnectionExecutor])>((false, [:]))

    init(handler: @escaping HTTPHandler, limits: HTTPServer.Limits) {
        self.handler = handler
        self.limits = limits
        connections = ConnectionGuard(limits: limits)
    }

    /// MHD calls the access handler once with the headers, once per piece of body, then once more.
    func advance(_ state: RequestState, on connection: OpaquePointer, method: String,
                 upload: UnsafePointer<CChar>?, uploadSize: UnsafeMutablePointer<Int>) -> MHD_Result {
        if !state.headersSeen {
            state.headersSeen = true
            if ConnectionGuard.entry(connection)?.isOverLimit == true { return queue(Self.tooManyConnections(), on: connection) }
            if state.hasTooManyArguments { return queue(Self.tooManyArguments(limits), on: connection) }
            // Refused before the body is read; MHD then closes the connection rather than read it.
            if let declared = lookup(connection, "Content-Length"), UInt64(declared).map({ $0 > UInt64(limits.maximumBodyBytes) }) ?? false {
                return queue(Self.tooLarge(limits), on: connection)
            }
            return .YES
        }
        if uploadSize.pointee > 0 {
            let count = uploadSize.pointee
            uploadSize.pointee = 0
            // Only a chunked body can get here oversized; MHD cannot answer mid-body, so it is dropped.
            guard let upload, state.body.count + count <= limits.maximumBodyBytes else { return .NO }
            upload.withMemoryRebound(to: UInt8.self, capacity: count) { state.body.append($0, count: count) }
            return .YES
        }
        ConnectionGuard.entry(connection)?.received()
        // By bytes: the path ends at the first `?`, and reading the target by Characters was a tenth of this.
        let target = state.target
        let path = target.utf8.firstIndex(of: UInt8(ascii: "?")).map { String(target[..<$0]) } ?? target
        let request = HTTPRequest(method: method, path: path,
                                  query: values(connection, MHD_ValueKind.GET_ARGUMENT_KIND),
                                  headers: headers(connection), body: state.body)
        return queue(respond(to: request), on: connection)
    }

    /// Runs the handler on this (MHD connection) thread until it answers; see `HTTPServer`.
    private func respond(to request: HTTPRequest) -> HTTPResponse {
        let executor = ConnectionExecutor()
        let admitted = waiting.withLock { waiting in
            if !waiting.stopping { waiting.executors[ObjectIdentifier(executor)] = executor }
            return !waiting.stopping
        }
        guard admitted else { return Self.stopping }
        let handler = self.handler
        let task = Task(executorPreference: executor) { executor.answer(await handler(request)) }
        let response = executor.run(seconds: limits.handlerTimeout, orElse: Self.timedOut)
        task.cancel()  // a no-op when it answered
        _ = waiting.withLock { $0.executors.removeValue(forKey: ObjectIdentifier(executor)) }
        return response
    }

    /// Releases every waiting connection thread with 503, and admits no new request.
    func stopWaiting() {
        let executors = waiting.withLock { waiting in
            waiting.stopping = true
            return Array(waiting.executors.values)
        }
        for executor in executors { executor.answer(Self.stopping) }
    }

    // App Store Server API-style error bodies (Apple's client parses errors only as JSON).
    static func tooLarge(_ limits: HTTPServer.Limits) -> HTTPResponse {
        .json(413, #"{"errorCode":4000000,"errorMessage":"The request body is larger than \#(limits.maximumBodyBytes) bytes."}"#)
    }
    /// Apple's 429 says when to try again: `retry-after`, "a UNIX time, in milliseconds" (a second from now here).
    static func tooManyConnections(now: Date = Date()) -> HTTPResponse {
        HTTPResponse(status: 429, headers: ["content-type": "application/json", "connection": "close",
                                            "retry-after": String(Int64((now.timeIntervalSince1970 + 1) * 1000))],
                     body: Data(#"{"errorCode":4290000,"errorMessage":"Rate limit exceeded."}"#.utf8))
    }
    static func tooManyArguments(_ limits: HTTPServer.Limits) -> HTTPResponse {
        .json(400, #"{"errorCode":4000000,"errorMessage":"The request has more than \#(limits.maximumQueryArguments) query arguments."}"#)
    }
    static let timedOut = HTTPResponse.json(500, #"{"errorCode":5000001,"errorMessage":"The server took too long to answer. Try again."}"#)
    static let stopping = HTTPResponse.json(503, #"{"errorCode":5000001,"errorMessage":"The server is stopping. Try again."}"#)
    static let invalid = HTTPResponse.json(500, #"{"errorCode":5000000,"errorMessage":"An unknown error occurred."}"#)

    private func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
        let response = (100...999).contains(response.status) ? response : Self.invalid
        // MHD copies the body and writes nothing into it (mutable bytes would have copied it once more).
        let created = response.body.withUnsafeBytes {
            MHD_create_response_from_buffer($0.count, UnsafeMutableRawPointer(mutating: $0.baseAddress), MHD_ResponseMemoryMode.RESPMEM_MUST_COPY)
        }
        guard let created else { return .NO }
        defer { MHD_destroy_response(created) }
        // MHD writes Content-Length itself and refuses names or values that would split the header.
        for (name, value) in response.headers where name.lowercased() != "content-length" {
            _ = MHD_add_response_header(created, name, value)
        }
        return MHD_queue_response(connection, UInt32(response.status), created)
    }

    private func lookup(_ connection: OpaquePointer, _ header: String) -> String? {
        MHD_lookup_connection_value(connection, MHD_ValueKind.HEADER_KIND, header).map { String(cString: $0) }
    }

    /// Names and values in order, as MHD parsed them (for arguments: `+` and percent-decoding done).
    private func values(_ connection: OpaquePointer, _ kind: MHD_ValueKind) -> [(name: String, value: String)] {
        var list: [(name: String, value: String)] = []
        withUnsafeMutablePointer(to: &list) { pointer in
            _ = MHD_get_connection_values_n(connection, kind, { cls, _, key, keySize, value, valueSize in
                let list = cls!.assumingMemoryBound(to: [(name: String, value: String)].self)
                list.pointee.append((text(key, keySize), text(value, valueSize)))
                return .YES
            }, pointer)
        }
        return list
    }

    /// Header names lower-cased; a repeated header's values joined with ", " as HTTP allows.
    private func headers(_ connection: OpaquePointer) -> [String: String] {
        values(connection, MHD_ValueKind.HEADER_KIND).reduce(into: [:]) { headers, pair in
            let name = pair.name.lowercased()
            headers[name] = headers[name].map { $0 + ", " + pair.value } ?? pair.value
        }
    }
}

private func text(_ pointer: UnsafePointer<CChar>?, _ count: Int) -> String {
    guard let pointer else { return "" }
    return String(decoding: UnsafeRawBufferPointer(start: pointer, count: count), as: UTF8.self)
}

/// The executor of one request's handler: the MHD connection thread waiting for its answer runs
/// the handler's jobs itself (`run`). Once the answer is in (the handler's, a timeout's, or the
/// server stopping's; the first wins), that thread leaves, and jobs still to come (a handler that
/// timed out and is being cancelled, the tasks it left behind) run on Dispatch threads instead, so
/// none is stranded.
private final class ConnectionExecutor: TaskExecutor {
    private struct State {
        var jobs: [UnownedJob] = []
        var answer: HTTPResponse?
        var handedOver = false
    }
    private let state = Locked(State())
    private let wake = DispatchSemaphore(value: 0)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let handedOver = state.withLock { state in
            if !state.handedOver { state.jobs.append(job) }
            return state.handedOver
        }
        if handedOver { runElsewhere(job) } else { wake.signal() }
    }

    func answer(_ response: HTTPResponse) {
        state.withLock { state in
            if state.answer == nil { state.answer = response }
        }
        wake.signal()
    }

    /// Runs jobs on the calling thread until there is an answer, or `fallback` after `seconds`.
    func run(seconds: Double, orElse fallback: HTTPResponse) -> HTTPResponse {
        let deadline = DispatchTime.now() + seconds
        while state.withLock({ $0.answer == nil }) {
            if wake.wait(timeout: deadline) == .timedOut { answer(fallback) }
            let jobs = state.withLock { state -> [UnownedJob] in
                guard state.answer == nil else { return [] }  // left for the hand-over below
                defer { state.jobs.removeAll() }
                return state.jobs
            }
            for job in jobs { job.runSynchronously(on: asUnownedTaskExecutor()) }
        }
        let (answer, leftovers) = state.withLock { state in
            state.handedOver = true
            defer { state.jobs.removeAll() }
            return (state.answer!, state.jobs)
        }
        for job in leftovers { runElsewhere(job) }
        return answer
    }

    private func runElsewhere(_ job: UnownedJob) {
        DispatchQueue.global().async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
