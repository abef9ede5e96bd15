import Foundation
import Testing
import StoreCore
@testable import StoreEngine

/// Everything a finished stream yielded.
private func everything(_ stream: AsyncStream<String>) async -> [String] {
    var yielded: [String] = []
    for await jws in stream { yielded.append(jws) }
    return yielded
}

@Suite("Update delivery: the app's Transaction.updates listeners (plain values)")
struct UpdateDeliveryTests {
    @Test("updates reach every listener; this process's own purchase does not, another process's does; silent events never")
    func delivers() async {
        var delivery = UpdateDelivery(lastSeenEvent: 10)
        let (first, firstListener) = AsyncStream<String>.makeStream()
        let (second, secondListener) = AsyncStream<String>.makeStream()
        _ = delivery.add(firstListener)
        _ = delivery.add(secondListener)
        delivery.deliver([(11, 1, .update, delivery.origin), (12, 2, .purchase, delivery.origin), (13, 3, .purchase, "another"),
                          (14, 4, .silent, "another"), (15, 5, .update, "another")]) { "jws\($0)" }
        #expect(delivery.lastSeenEvent == 15)
        delivery.finish()
        #expect(await everything(first) == ["jws1", "jws3", "jws5"])
        #expect(await everything(second) == ["jws1", "jws3", "jws5"])
    }

    @Test("a transaction that cannot be handed out is passed over")
    func passesOverMissingTokens() async {
        var delivery = UpdateDelivery(lastSeenEvent: 0)
        let (stream, listener) = AsyncStream<String>.makeStream()
        _ = delivery.add(listener)
        delivery.deliver([(1, 1, .update, "x"), (2, 2, .update, "x")]) { $0 == 1 ? nil : "jws\($0)" }
        delivery.finish()
        #expect(await everything(stream) == ["jws2"])
        #expect(delivery.lastSeenEvent == 2)
    }

    @Test("this process's own purchase right after the last event seen needs no read; anything else does")
    func passOver() {
        var delivery = UpdateDelivery(lastSeenEvent: 5)
        let ownPurchase = delivery.passOver(6, of: .purchase)
        #expect(ownPurchase)
        #expect(delivery.lastSeenEvent == 6)
        let others = [delivery.passOver(8, of: .purchase), delivery.passOver(7, of: .update), delivery.passOver(nil, of: .silent)]
        #expect(others == [false, false, false])
        #expect(delivery.lastSeenEvent == 6)
        delivery.passOver(upTo: 9)
        delivery.passOver(upTo: 3)
        #expect(delivery.lastSeenEvent == 9)
    }

    @Test("removing the last listener says so")
    func listeners() {
        var delivery = UpdateDelivery(lastSeenEvent: 0)
        let a = delivery.add(AsyncStream<String>.makeStream().continuation)
        let b = delivery.add(AsyncStream<String>.makeStream().continuation)
        let left = [delivery.remove(a), delivery.remove(b)]
        #expect(left == [true, false])
        #expect(!delivery.hasListeners)
    }
}
