import Foundation
import StoreCore
import StoreEngine

/// StoreKit's `Message`: a sheet the App Store wants to show over the app (a price increase to agree to, a
/// billing issue, a win-back offer). An app that listens to `messages` shows each when it suits it, with
/// `display(in:)`; one that does not never sees them here (there is no screen to show them on by default).
public struct Message: Sendable, Hashable {
    public let reason: Reason
    let message: StoreMessage

    init(_ message: StoreMessage) {
        self.message = message
        reason = switch message.reason {
        case .priceIncreaseConsent: .priceIncreaseConsent
        case .billingIssue: .billingIssue
        case .winBackOffer: .winBackOffer
        }
    }

    public static func == (a: Message, b: Message) -> Bool { a.message.key == b.message.key }
    public func hash(into hasher: inout Hasher) { hasher.combine(message.key) }

    public struct Reason: RawRepresentable, Hashable, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        public static let generic = Reason(rawValue: 0)
        public static let priceIncreaseConsent = Reason(rawValue: 1)
        public static let billingIssue = Reason(rawValue: 2)
        public static let winBackOffer = Reason(rawValue: 3)

        public var localizedDescription: String {
            ["Generic", "Price Increase Consent", "Billing Issue", "Win-Back Offer"][safe: rawValue] ?? "Message.Reason(\(rawValue))"
        }
    }

    /// Each message the App Store has for the customer, once: those waiting when the app starts listening
    /// (StoreKit fetches them at launch), then each new one (the store is looked at four times a second).
    public static var messages: Messages { Messages() }

    public struct Messages: AsyncSequence, Sendable {
        public typealias Element = Message

        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator() }

        public struct AsyncIterator: AsyncIteratorProtocol {
            var connection: StoreConnection?
            var sent: Set<String> = []
            var ready: [Message] = []

            public mutating func next() async -> Message? {
                while !Task.isCancelled {
                    if !ready.isEmpty { return ready.removeFirst() }
                    guard let connection = await StoreKitRuntime.listening() else { return nil }
                    // Another store (a test's new session) has messages of its own to give.
                    if !(self.connection.map { $0.isOnSameStoreOrConnection(as: connection) } ?? false) {
                        self.connection = connection
                        sent = []
                    }
                    ready = await connection.pendingMessages().filter { sent.insert($0.message.key).inserted }
                    if ready.isEmpty, (try? await Task.sleep(for: .milliseconds(250))) == nil { return nil }
                }
                return nil
            }
        }
    }

    /// Shows the message in `scene`; its customer answers it (see `UIScene`), and what they chose happens
    /// in the App Store: agreeing to the price increase, fixing the payment method, buying with the
    /// win-back offer. The app learns of it through `Transaction.updates` and `Status.updates`, as on a device.
    public func display(in scene: UIWindowScene) throws {
        guard let connection = StoreKitRuntime.current else { throw StoreKitError.unknown }
        guard let controls = connection.source as? any StoreTestControls else { throw StoreKitError.unsupported }
        let message = message
        Task {
            guard await scene.customer(.message(self)) != .cancel else { return }  // Not Now: it comes back next launch
            switch message.reason {
            case .priceIncreaseConsent: try await controls.respondToPriceIncrease(productID: message.productID, agree: true)
            case .billingIssue: try await controls.resolveBillingIssue(productID: message.productID)
            case .winBackOffer:
                guard let product = try await Product.products(for: [message.productID]).first,
                      let offer = product.subscription?.winBackOffers.first(where: { $0.id == message.winBackOfferID }) else { return }
                _ = try await product.purchase(confirmIn: scene, options: [.winBackOffer(offer)])
            }
        }
    }
}

extension StoreConnection {
    /// The messages the App Store has for the customer now, from their subscription statuses (`StoreMessage`).
    func pendingMessages() async -> [Message] {
        guard let products = try? await source.products(for: nil) else { return [] }
        let winBacks = Dictionary(products.map { ($0.id, $0.subscription?.winBackOffers.compactMap(\.id) ?? []) }) { a, _ in a }
        return await allStatuses().compactMap { status in
            let t = status.transaction.unsafePayloadValue.payload
            guard let state = SubscriptionState.allCases[safe: status.state.rawValue - 1] else { return nil }
            return StoreMessage.for(state, transaction: t, renewalInfo: status.renewalInfo.unsafePayloadValue.payload,
                                    winBackOfferIDs: winBacks[t.productID] ?? []).map(Message.init)
        }
    }
}
