import Foundation
import StoreCore
import StoreSigning

/// Verification results by token, kept while refreshes read them: a refresh reads the same signed
/// data as the one before, however many subscriptions and entitlements there are. One table, each
/// result marked with the last refresh that read it: a table rebuilt at every refresh (and the one
/// before freed) was a fifth of a refresh with a thousand subscriptions.
public struct VerificationCache<Payload: Sendable & Equatable> {
    private struct Entry {
        var result: Verification<Payload>
        var refresh: Int
    }
    private var entries: [Token: Entry] = [:]

    public init() {}
    /// The refresh reading now, how many tokens it has read, and how many the one before read.
    private var refresh = 0
    private var read = 0, readBefore = 0
    /// Where the payload starts in the first token read: tokens from one signer share a header (its
    /// certificate chain, most of a token), so the payload is found without searching it, which was
    /// a third of a lookup. Fixed once set, so a token's key never changes.
    private var payloadStart: Int?

    /// A token keyed by the bytes that tell one from another (its signature's end, and its payload's
    /// start, where a transaction's ID is), hashed once: hashing whole tokens, certificate chains and
    /// all (3.7 KB each), was a fifth of a refresh, and the signature alone collided for tokens that
    /// share one. Equality still compares the whole token, so a forged one never meets a verified result.
    private struct Token: Hashable {
        let jws: String
        let key: Int

        init(_ jws: String, payloadStart: Int?) {
            self.jws = jws
            key = jws.utf8.withContiguousStorageIfAvailable { Self.key($0, payloadStart) }
                ?? Array(jws.utf8).withUnsafeBufferPointer { Self.key($0, payloadStart) }
        }

        static func == (a: Token, b: Token) -> Bool { a.key == b.key && a.jws == b.jws }
        func hash(into hasher: inout Hasher) { hasher.combine(key) }

        static func key(_ bytes: UnsafeBufferPointer<UInt8>, _ payloadStart: Int?) -> Int {
            var hasher = Hasher()
            let window = 64
            hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[max(bytes.count - window, 0)...])))
            if let start = Self.payloadStart(bytes, known: payloadStart) {
                hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[start..<min(start + window, bytes.count)])))
            }
            return hasher.finalize()
        }

        /// Just past a dot: the one at `known` when there is one there, else the first.
        static func payloadStart(_ bytes: UnsafeBufferPointer<UInt8>, known: Int?) -> Int? {
            if let known, known > 0, known <= bytes.count, bytes[known - 1] == UInt8(ascii: ".") { return known }
            guard let base = bytes.baseAddress, let dot = memchr(base, Int32(UInt8(ascii: ".")), bytes.count) else { return nil }
            return base.distance(to: dot.assumingMemoryBound(to: UInt8.self)) + 1
        }
    }

    /// Forgets the results neither this refresh nor the one before read, once they outnumber those:
    /// rarely, while each refresh reads about the same tokens.
    public mutating func startRefresh() {
        refresh += 1
        (readBefore, read) = (read, 0)
        guard entries.count > 2 * readBefore else { return }
        entries = entries.filter { $0.value.refresh >= refresh - 1 }
    }

    public mutating func result(_ jws: String, _ verify: (String) -> Verification<Payload>) -> Verification<Payload> {
        if payloadStart == nil {
            payloadStart = jws.utf8.withContiguousStorageIfAvailable { Token.payloadStart($0, known: nil) } ?? nil
        }
        let token = Token(jws, payloadStart: payloadStart)
        if let index = entries.index(forKey: token) {
            if entries.values[index].refresh != refresh {
                entries.values[index].refresh = refresh
                read += 1
            }
            return entries.values[index].result
        }
        let result = verify(jws)
        entries[token] = Entry(result: result, refresh: refresh)
        read += 1
        return result
    }
}

