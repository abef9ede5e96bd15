/// App Store Server Notifications V2 types, as the App Store names them: all of Apple's (Get
/// Notification History filters by any), though the store sends those its events call for only.
public enum NotificationType: String, Sendable, CaseIterable {
    case subscribed = "SUBSCRIBED", didRenew = "DID_RENEW", didChangeRenewalPref = "DID_CHANGE_RENEWAL_PREF"
    case didChangeRenewalStatus = "DID_CHANGE_RENEWAL_STATUS", offerRedeemed = "OFFER_REDEEMED"
    case didFailToRenew = "DID_FAIL_TO_RENEW", gracePeriodExpired = "GRACE_PERIOD_EXPIRED", expired = "EXPIRED"
    case priceIncrease = "PRICE_INCREASE", refund = "REFUND", refundDeclined = "REFUND_DECLINED"
    case refundReversed = "REFUND_REVERSED", consumptionRequest = "CONSUMPTION_REQUEST", revoke = "REVOKE"
    case oneTimeCharge = "ONE_TIME_CHARGE", renewalExtended = "RENEWAL_EXTENDED", renewalExtension = "RENEWAL_EXTENSION", test = "TEST"
    /// Never sent here: external purchases, the Advanced Commerce API, consent to share data.
    case externalPurchaseToken = "EXTERNAL_PURCHASE_TOKEN", metadataUpdate = "METADATA_UPDATE", migration = "MIGRATION"
    case priceChange = "PRICE_CHANGE", rescindConsent = "RESCIND_CONSENT"
}

public enum NotificationSubtype: String, Sendable, CaseIterable {
    case initialBuy = "INITIAL_BUY", resubscribe = "RESUBSCRIBE", upgrade = "UPGRADE", downgrade = "DOWNGRADE"
    case autoRenewEnabled = "AUTO_RENEW_ENABLED", autoRenewDisabled = "AUTO_RENEW_DISABLED"
    case voluntary = "VOLUNTARY", billingRetry = "BILLING_RETRY", priceIncrease = "PRICE_INCREASE"
    case productNotForSale = "PRODUCT_NOT_FOR_SALE", gracePeriod = "GRACE_PERIOD", billingRecovery = "BILLING_RECOVERY"
    case pending = "PENDING", accepted = "ACCEPTED", summary = "SUMMARY", failure = "FAILURE"
    /// Never sent here (EXTERNAL_PURCHASE_TOKEN's).
    case unreported = "UNREPORTED"
}

/// Why the customer asked for a refund, as `CONSUMPTION_REQUEST`'s `data.consumptionRequestReason`
/// tells a backend: from the reason picked on the refund sheet (or Apple's own name, in a scenario).
public enum ConsumptionRequestReason: String, Sendable, CaseIterable {
    case unintendedPurchase = "UNINTENDED_PURCHASE", fulfillmentIssue = "FULFILLMENT_ISSUE"
    case unsatisfiedWithPurchase = "UNSATISFIED_WITH_PURCHASE", legal = "LEGAL", other = "OTHER"

    public init(customerReason reason: String) {
        let text = reason.lowercased()
        if let named = Self(rawValue: reason.uppercased()) {
            self = named
        } else if text.contains("didn't mean") || text.contains("child") || text.contains("family") || text.contains("accident") {
            self = .unintendedPurchase
        } else if text.contains("receive") || text.contains("deliver") {
            self = .fulfillmentIssue
        } else if text.contains("work") || text.contains("expected") {
            self = .unsatisfiedWithPurchase
        } else if text.contains("legal") {
            self = .legal
        } else {
            self = .other
        }
    }
}
