/// The phrases the customer reads, by what they say; English is the reference every table matches.
enum Phrase: String, CaseIterable, Sendable {
    // Offer terms and prices
    case perPeriod, monthlyCommitment, termsFree, termsPayAsYouGo, termsPayUpFront, termsOnce, termsThen
    // The payment sheet
    case subscribeButton, buyButton, cancelButton, unavailable, account, localTester, purchasing
    case alreadyPurchased, alreadySubscribed, resubscribeNotice, billingPlan, planMonthly, planUpFront, offerLine, introLine
    case signatureLocal, signatureFile, priceLine, commitment, renewsAutomatically
    case priceNonRenewingFor, priceNonRenewing, priceConsumable, priceOneTime, offerChoice
    case choiceRegular, choiceIntroductory, choicePromotional, choiceWinBack
    // The Store screen
    case sectionSubscriptions, sectionConsumable, sectionNonConsumable, sectionNonRenewing
    case orBilledMonthly, winBackRow, balance, owned, subscribedUntil, inGracePeriod, inBillingRetry
    case active, activeUntil, pendingApproval, interrupted
    // The Subscriptions screen
    case groupState, notSubscribed, eligibleForIntro, stateSubscribed, stateExpired, stateRevoked
    case productLine, revokedLine, reasonAppIssue, reasonOther, renewsLine, expiresLine
    case autoRenewYes, autoRenewTo, autoRenewAt, autoRenewToAt, autoRenewNo
    case expirationReasonLine, expirationVoluntary, expirationBillingError, expirationPriceIncrease
    case expirationProductUnavailable, expirationOther
    case priceIncreaseAgreed, priceIncreaseAwaiting, graceEnds, winBackOffers, offerUsed, offerUsedID
    case offerIntroductory, offerPromotional, offerCode, offerWinBack
    // Manage Subscriptions and cancelling
    case manageTitle, noActiveSubscription, cancelUntil, turnAutoRenewOn, upgradeNow, downgradeAtRenewal
    case crossgradeNow, crossgradeAtRenewal, switchNowQuestion, switchLaterQuestion, switchButton, keepNamed
    case noteRenews, noteRenewsThen, noteExpires, noteExpiresThen, cancelQuestion, cancelQuestionPlain
    case cancelSubscription, cancelSubscriptionButton, keepButton, keepMySubscription, switchToLine, takeOffer, takeOfferTerms
    // StoreKit's messages
    case priceIncreaseTitle, priceIncreaseText, priceIncreaseConsent, nextRenewal, agreeButton, notNowButton
    case billingTitle, billingText, billingTextGrace, updatePaymentButton, comeBackTitle, offerForYou, redeemButton
    // Refunds and offer codes
    case refundTitle, refundAlready, refundQuestion, refundAccidental, refundFamily, refundNotAsExpected
    case refundNotReceived, refundOther, redeemTitle, redeemPrompt
    // The paywall (SubscriptionStoreView, ProductView, SubscriptionOfferView)
    case paywallSubscribe, subscribeTo, restorePurchases, redeemCode, termsOfService, privacyPolicy, currentPlan
    case paywallRenewsNote, noPlans, subscribedTo, changeUpgrade, changeDowngrade, changeCrossgradeNow, changeCrossgradeAtRenewal
    // A purchase's outcome and the redeem sheet's answer
    case okButton, purchaseFailedTitle, waitingTitle, waitingText, interruptedTitle, interruptedText
    case unverifiedTitle, unverifiedText, codeNotRedeemedTitle, codePlaceholder, redeeming
    // StoreKit's errors, as their localizedDescription reads (`StringTable.message(for:)`)
    case errorUnknown, errorUserCancelled, errorNetwork, errorSystem, errorNotAvailableInStorefront, errorNotEntitled
    case errorUnsupported, errorInvalidQuantity, errorProductUnavailable, errorPurchaseNotAllowed, errorIneligibleForOffer
    case errorInvalidOfferIdentifier, errorInvalidOfferPrice, errorInvalidOfferSignature, errorMissingOfferParameters
    case errorVerification, errorRefundDuplicate, errorRefundFailed, errorCodeUnknown, errorCodeUsedUp, errorCodeExpired
    case errorCodeNotEligible, errorCodeAlreadyOwned, errorCodeNotInStorefront
    // The product's details
    case detailTitle, detailNotSoldHere, detailType, typeConsumable, typeNonConsumable, typeAutoRenewable, typeNonRenewing
    case detailGroup, detailPlans, detailPlanTotal, detailNotSold, detailPromotionalOffers, detailWinBackOffers
    case detailLasts, detailFamilySharing, detailStatus, detailOfferCodes, codeForNew, codeForExisting, codeForExpired
    case codeForAnyone, codeGrantsProduct, codeAlias, codeUntil, codeExpiredOn, listSeparator, linkLine
}

extension StringTable {
    static let english = StringTable(id: "en", entries: [
        .perPeriod: "{price}/{unit}",
        .monthlyCommitment: "{price}/{unit}, {months}-month commitment",
        .termsFree: "{length} free",
        .termsPayAsYouGo: "{price}/{unit} for {length}",
        .termsPayUpFront: "{price} for {length}",
        .termsOnce: "{price} once",
        .termsThen: "{offer}, then {regular}",
        .subscribeButton: "Confirm",
        .buyButton: "Confirm",
        .cancelButton: "Cancel",
        .unavailable: "This product is no longer available.",
        .account: "Account: {account} · Environment: {environment}",
        .localTester: "local tester",
        .purchasing: "Purchasing…",
        .alreadyPurchased: "You've already purchased this. Would you like to get it again for free?",
        .alreadySubscribed: "You're currently subscribed to this. Confirm to keep it: nothing is charged.",
        .resubscribeNotice: "Your subscription ends on {date}. Confirm to resubscribe: it renews again, and nothing is charged now.",
        .billingPlan: "Billing plan: {plan}   (b to change)",
        .planMonthly: "Monthly",
        .planUpFront: "Up front",
        .offerLine: "Offer: {terms}",
        .introLine: "Intro offer: {terms}",
        .signatureLocal: "Signature: the local store's   (s to change)",
        .signatureFile: "Signature: your server's, from {file}   (s to change)",
        .priceLine: "Price: {price}",
        .commitment: "Commitment: 12 monthly payments, {total} in all.",
        .renewsAutomatically: "Renews automatically until cancelled.",
        .priceNonRenewingFor: "Price: {price} for {length} (does not renew)",
        .priceNonRenewing: "Price: {price} (does not renew)",
        .priceConsumable: "Price: {price} × {quantity} = {total}   (+/- quantity)",
        .priceOneTime: "Price: {price}, one-time purchase",
        .offerChoice: "Offer choice: {offer}   (o to change)",
        .choiceRegular: "Regular price",
        .choiceIntroductory: "Introductory offer",
        .choicePromotional: "Promotional: {id}",
        .choiceWinBack: "Win-back: {id}",
        .sectionSubscriptions: "Subscriptions · {group}",
        .sectionConsumable: "Consumables",
        .sectionNonConsumable: "Non-consumables",
        .sectionNonRenewing: "Non-renewing subscriptions",
        .orBilledMonthly: "Or billed monthly: {terms}",
        .winBackRow: "Win-back offer: {terms}",
        .balance: "Balance: {count}",
        .owned: "Owned",
        .subscribedUntil: "Subscribed until {date}",
        .inGracePeriod: "In grace period",
        .inBillingRetry: "In billing retry",
        .active: "Active",
        .activeUntil: "Active until {date}",
        .pendingApproval: "Pending approval",
        .interrupted: "Interrupted",
        .groupState: "{group}: {state}",
        .notSubscribed: "{group}: not subscribed",
        .eligibleForIntro: "Eligible for an introductory offer",
        .stateSubscribed: "Subscribed",
        .stateExpired: "Expired",
        .stateRevoked: "Revoked",
        .productLine: "Product: {name} ({terms})",
        .revokedLine: "Revoked: {date} (reason: {reason})",
        .reasonAppIssue: "an issue in the app",
        .reasonOther: "other",
        .renewsLine: "Renews: {date}",
        .expiresLine: "Expires: {date}",
        .autoRenewYes: "Will auto-renew: yes",
        .autoRenewTo: "Will auto-renew: yes to {name}",
        .autoRenewAt: "Will auto-renew: yes at {price}",
        .autoRenewToAt: "Will auto-renew: yes to {name} at {price}",
        .autoRenewNo: "Will auto-renew: no",
        .expirationReasonLine: "Expiration reason: {reason}",
        .expirationVoluntary: "cancelled",
        .expirationBillingError: "billing error",
        .expirationPriceIncrease: "price increase not agreed",
        .expirationProductUnavailable: "product not available",
        .expirationOther: "other",
        .priceIncreaseAgreed: "Price increase: agreed",
        .priceIncreaseAwaiting: "Price increase: awaiting consent",
        .graceEnds: "Grace period ends: {date}",
        .winBackOffers: "Win-back offers: {ids}",
        .offerUsed: "Offer: {kind}",
        .offerUsedID: "Offer: {kind} {id}",
        .offerIntroductory: "introductory offer",
        .offerPromotional: "promotional offer",
        .offerCode: "offer code",
        .offerWinBack: "win-back offer",
        .manageTitle: "Manage Subscriptions",
        .noActiveSubscription: "You have no active subscription in {group}. Buy one in the Store (1).",
        .cancelUntil: "Cancel subscription (access until {date})",
        .turnAutoRenewOn: "Turn auto-renew back on",
        .upgradeNow: "upgrade now",
        .downgradeAtRenewal: "downgrade at renewal",
        .crossgradeNow: "crossgrade now",
        .crossgradeAtRenewal: "crossgrade at renewal",
        .switchNowQuestion: "Switch to {plan} for {price}? It starts now: you pay {charge} today and get back the unused part of {current}.",
        .switchLaterQuestion: "Switch to {plan} for {price}? It starts on {date}, when {current} would renew; nothing changes until then.",
        .switchButton: "Switch",
        .keepNamed: "Keep {name}",
        .noteRenews: "{group}: {name}. Renews {date}.",
        .noteRenewsThen: "{group}: {name}, then {next}. Renews {date}.",
        .noteExpires: "{group}: {name}. Expires {date}.",
        .noteExpiresThen: "{group}: {name}, then {next}. Expires {date}.",
        .cancelQuestion: "Cancel {name}? You keep access until {date}; it will not renew after that.",
        .cancelQuestionPlain: "Cancel the subscription?",
        .cancelSubscription: "Cancel subscription",
        .cancelSubscriptionButton: "Cancel Subscription",
        .keepButton: "Keep",
        .keepMySubscription: "Keep my subscription",
        .switchToLine: "Switch to {name} · {price}",
        .takeOffer: "Take the offer",
        .takeOfferTerms: "Take the offer: {terms}",
        .priceIncreaseTitle: "Price Increase",
        .priceIncreaseText: "The price of {name} is going up to {new} (from {old}).",
        .priceIncreaseConsent: "If you agree, it renews at the new price on {date}. If you don't, it ends then.",
        .nextRenewal: "the next renewal",
        .agreeButton: "Agree",
        .notNowButton: "Not Now",
        .billingTitle: "Billing Problem",
        .billingText: "There was a problem renewing {name}. Update your payment method to keep it.",
        .billingTextGrace: "There was a problem renewing {name}. Update your payment method to keep it (you keep access for now).",
        .updatePaymentButton: "Update Payment",
        .comeBackTitle: "Come Back to {name}",
        .offerForYou: "An offer for you: {terms}.",
        .redeemButton: "Redeem",
        .refundTitle: "Request a Refund",
        .refundAlready: "This purchase was already refunded.",
        .refundQuestion: "{name} · {price} · #{id}. Why are you requesting a refund?",
        .refundAccidental: "I didn't mean to buy this",
        .refundFamily: "A child or family member bought it",
        .refundNotAsExpected: "It doesn't work or isn't what I expected",
        .refundNotReceived: "I didn't receive it",
        .refundOther: "Other",
        .redeemTitle: "Redeem Offer Code",
        .redeemPrompt: "Enter the code, then press Enter.",
        // The paywall
        .paywallSubscribe: "Subscribe",
        .subscribeTo: "Subscribe to {name}",
        .restorePurchases: "Restore Purchases",
        .redeemCode: "Redeem Code",
        .termsOfService: "Terms of Service",
        .privacyPolicy: "Privacy Policy",
        .currentPlan: "Current plan",
        .paywallRenewsNote: "Subscriptions renew automatically until cancelled.",
        .noPlans: "Nothing in this group is sold in this storefront.",
        .subscribedTo: "You're subscribed to {name}.",
        .changeUpgrade: "Upgrade to {name} · {price} · starts now, the unused time is refunded",
        .changeDowngrade: "Downgrade to {name} · {price} · starts on {date}",
        .changeCrossgradeNow: "Switch to {name} · {price} · starts now",
        .changeCrossgradeAtRenewal: "Switch to {name} · {price} · starts on {date}",
        // A purchase's outcome and the redeem sheet's answer
        .okButton: "OK",
        .purchaseFailedTitle: "Purchase failed",
        .waitingTitle: "Waiting for approval",
        .waitingText: "Ask to Buy: a parent must approve {name}. It will appear when approved.",
        .interruptedTitle: "Action required",
        .interruptedText: "The purchase of {name} was interrupted. Resolve it in the QA panel (4).",
        .unverifiedTitle: "Purchase unverified",
        .unverifiedText: "{name} was bought but its transaction failed verification ({error}). It was not delivered.",
        .codeNotRedeemedTitle: "Code not redeemed",
        .codePlaceholder: "CODE",
        .redeeming: "Redeeming…",
        // StoreKit's errors
        .errorUnknown: "An unknown error occurred.",
        .errorUserCancelled: "The purchase was cancelled.",
        .errorNetwork: "Cannot connect to the App Store (network error).",
        .errorSystem: "The App Store reported a system error.",
        .errorNotAvailableInStorefront: "This item is not available in your country or region.",
        .errorNotEntitled: "This app is not entitled to use this App Store feature.",
        .errorUnsupported: "This action is not supported here.",
        .errorInvalidQuantity: "That quantity cannot be purchased.",
        .errorProductUnavailable: "This product is not available.",
        .errorPurchaseNotAllowed: "Purchases are not allowed on this account.",
        .errorIneligibleForOffer: "You are not eligible for this offer.",
        .errorInvalidOfferIdentifier: "The offer identifier is not valid.",
        .errorInvalidOfferPrice: "The offer price is not valid.",
        .errorInvalidOfferSignature: "The offer signature is not valid.",
        .errorMissingOfferParameters: "The offer is missing its signature.",
        .errorVerification: "The transaction failed verification ({error}).",
        .errorRefundDuplicate: "A refund request for this purchase is already pending.",
        .errorRefundFailed: "The refund request could not be submitted.",
        .errorCodeUnknown: "This code is not valid.",
        .errorCodeUsedUp: "This code has already been redeemed the maximum number of times.",
        .errorCodeExpired: "This code has expired.",
        .errorCodeNotEligible: "This account is not eligible for this code.",
        .errorCodeAlreadyOwned: "You already own what this code grants.",
        .errorCodeNotInStorefront: "This code is not available in your country or region.",
        // The product's details
        .detailTitle: "Product",
        .detailNotSoldHere: "Product {id} is not sold in this storefront.",
        .detailType: "Type: {type}",
        .typeConsumable: "Consumable",
        .typeNonConsumable: "Non-Consumable",
        .typeAutoRenewable: "Auto-Renewable Subscription",
        .typeNonRenewing: "Non-Renewing Subscription",
        .detailGroup: "Group: {group}, level {level}",
        .detailPlans: "Billing plans (b on the payment sheet):",
        .detailPlanTotal: "{terms} · {total} in all",
        .detailNotSold: "not sold",
        .detailPromotionalOffers: "Promotional offers:",
        .detailWinBackOffers: "Win-back offers:",
        .detailLasts: "Lasts: {length}",
        .detailFamilySharing: "Family Sharing: yes",
        .detailStatus: "Status: {status}",
        .detailOfferCodes: "Offer codes (redeem with c):",
        .codeForNew: "new customers",
        .codeForExisting: "subscribers",
        .codeForExpired: "lapsed subscribers",
        .codeForAnyone: "anyone",
        .codeGrantsProduct: "the product, free",
        .codeAlias: "(or {name})",
        .codeUntil: "until {date}",
        .codeExpiredOn: "expired {date}",
        .listSeparator: ", ",
        .linkLine: "{label}: {url}",
    ])
}
