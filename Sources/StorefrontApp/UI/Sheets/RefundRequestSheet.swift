import Foundation
import StoreClient
import StoreCore
import StoreEngine

/// `Transaction.beginRefundRequest(for:in:)`: the customer picks a reason and confirms; Esc is `userCancelled`.
enum RefundRequestSheet {
    /// The reasons the App Store's refund sheet offers: the store keeps the English one, the customer reads their own.
    static let reasons: [(reason: String, phrase: Phrase)] = [
        ("I didn't mean to buy this", .refundAccidental), ("A child or family member bought it", .refundFamily),
        ("It doesn't work or isn't what I expected", .refundNotAsExpected), ("I didn't receive it", .refundNotReceived), ("Other", .refundOther),
    ]

    static func sheet(for transaction: TransactionPayload, _ state: AppState) -> SheetState {
        let t = state.words
        guard !transaction.isRevoked else {
            return .message(title: t(.refundTitle), text: t(.refundAlready))
        }
        let name = state.product(transaction.productID)?.displayName ?? transaction.productID
        let price = PriceFormatter.displayPrice(transaction.price, currency: transaction.currency, locale: state.snapshot.locale)
        let items = reasons.map { MenuItem(label: t($0.phrase), effect: .command(.requestRefund(.id(transaction.transactionID), reason: $0.reason))) }
        return .menu(title: t(.refundTitle), items: items, selected: 0,
                     note: t(.refundQuestion, ["name": name, "price": price, "id": "\(transaction.transactionID)"]),
                     cancelled: "Refund request cancelled (userCancelled)")
    }
}
