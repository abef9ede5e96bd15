import Foundation
import StoreClient
import StoreCore
import StoreEngine

/// `Transaction.beginRefundRequest(for:in:)`: the customer picks a reason and confirms; Esc is `userCancelled`.
enum RefundRequestSheet {
    /// The reasons the App Store's refund sheet offers.
    static let reasons = ["I didn't mean to buy this", "A child or family member bought it", "It doesn't work or isn't what I expected",
                          "I didn't receive it", "Other"]

    static func sheet(for transaction: TransactionPayload, _ state: AppState) -> SheetState {
        guard !transaction.isRevoked else {
            return .message(title: "Request a Refund", text: "This purchase was already refunded.")
        }
        let name = state.product(transaction.productID)?.displayName ?? transaction.productID
        let price = PriceFormatter.displayPrice(transaction.price, currency: transaction.currency, locale: state.snapshot.locale)
        return .menu(title: "Request a Refund", items: reasons.map { MenuItem(label: $0, effect: .command(.requestRefund(.id(transaction.transactionID), reason: $0))) },
                     selected: 0, note: "\(name) · \(price) · #\(transaction.transactionID). Why are you requesting a refund?",
                     cancelled: "Refund request cancelled (userCancelled)")
    }
}
