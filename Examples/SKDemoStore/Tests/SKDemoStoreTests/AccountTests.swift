import Foundation
import SKDemoStore
import StoreKit
import StoreKitTest
import XCTest

/// The account screen's actions. On Linux the scene stands in for the customer at the App Store's sheet:
/// `UIWindowScene()` confirms, `UIWindowScene(answering:)` gives another answer (see docs/storekit.md).
final class AccountTests: SessionTestCase {

    @MainActor
    func testARefundRequestIsReceivedOnceAndACancelledSheetSendsNone() async throws {
        let store = await launchedStore()
        let car = try XCTUnwrap(store.cars.first)
        try await store.purchase(car)
        let cancelled = try await store.requestRefund(for: car, in: UIWindowScene(answering: .cancel))
        XCTAssertEqual(cancelled, .userCancelled)
        let sent = try await store.requestRefund(for: car, in: UIWindowScene(answering: .requestRefund(reason: "It doesn't work")))
        XCTAssertEqual(sent, .success)
        do {
            _ = try await store.requestRefund(for: car, in: UIWindowScene())
            XCTFail("a second request for the same purchase went through")
        } catch Transaction.RefundRequestError.duplicateRequest {
        }
    }

    @MainActor
    func testCancellingInManageSubscriptionsKeepsAccessUntilThePeriodEnds() async throws {
        let store = await launchedStore()
        let standard = try XCTUnwrap(store.subscriptions.first)
        try await store.purchase(standard)
        let group = try XCTUnwrap(standard.subscription?.subscriptionGroupID)
        try await store.manageSubscriptions(in: UIWindowScene(answering: .cancelSubscription(groupID: group)))
        XCTAssertEqual(store.subscriptionGroupStatus, .subscribed)
        let statuses = try await standard.subscription?.status ?? []
        let status = try XCTUnwrap(statuses.first)
        XCTAssertFalse(try status.renewalInfo.payloadValue.willAutoRenew)
    }

    @MainActor
    func testAPriceIncreaseMessageWaitsUntilTheAppShowsItThenTheAgreementIsSeen() async throws {
        let store = await launchedStore()
        let messages = store.listenForMessages()
        defer { messages.cancel() }
        let pro = try XCTUnwrap(store.subscriptions.last)
        let purchased = try await store.purchase(pro)
        let bought = try XCTUnwrap(purchased)
        try session.requestPriceIncreaseConsentForTransaction(identifier: Int(bought.id))
        try await eventually("the message is held back") { store.pendingMessages.map(\.reason) == [.priceIncreaseConsent] }
        try store.showPendingMessages(in: UIWindowScene())
        try await eventually("the customer agreed in the message") {
            let info = try? await pro.subscription?.status.first?.renewalInfo.payloadValue
            return info?.priceIncreaseStatus == .agreed
        }
    }

    @MainActor
    func testAnExpiryOutsideTheAppReachesTheStatusListener() async throws {
        let store = await launchedStore()
        let statuses = store.listenForStatusUpdates()
        defer { statuses.cancel() }
        let pro = try XCTUnwrap(store.subscriptions.last)
        try await store.purchase(pro)
        try session.expireSubscription(productIdentifier: pro.id)
        try await eventually("the group's status follows") { store.subscriptionGroupStatus == .expired }
    }
}
