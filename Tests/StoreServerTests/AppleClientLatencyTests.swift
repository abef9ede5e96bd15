import Foundation
import Testing
import StoreCore
import StoreEngine
@testable import StoreServer
import StorefrontTestSupport

/// Every endpoint's latency through Apple's client on a store of 1,000 transactions (the median of 20
/// calls, Python's HTTP client included). A measurement, run on request: `STOREFRONT_MEASURE_API=1`.
@Suite(.tags(.appleLibrary, .slow), .notInFastLoop,
       .enabled(if: AppleAPIClient.enabled && ProcessInfo.processInfo.environment["STOREFRONT_MEASURE_API"] != nil, "STOREFRONT_MEASURE_API is not set"))
struct AppleClientLatencyTests {
    @Test func everyEndpointOnAStoreOfAThousandTransactions() async throws {
        let b = try await AppleClientEndpointTests.Backend.open()
        await b.store.update { $0.notificationURL = "http://127.0.0.1:9/notifications" }
        let monthly = try await b.buy(ID.proMonthly)
        var last: Int64 = 0
        for _ in 0..<999 { last = try await b.buy(ID.coins) }
        #expect(await b.store.transactionCount() == 1000)
        let receiver = try NotificationReceiver()
        defer { receiver.stop() }
        let now = Int64(await b.store.now().timeIntervalSince1970 * 1000)
        let (image, message) = (UUID().uuidString, UUID().uuidString)
        let png = ["@base64": AppleClientEndpointTests.png]
        let realtime: [String: Any] = ["@model": "RealtimeUrlRequest", "realtimeURL": receiver.url]
        let calls: [(String, [String: Any], Int)] = [
            ("get_transaction_info", ["transaction_id": String(last)], 20),
            ("get_app_transaction_info", ["any_transaction_id": String(last)], 20),
            ("get_transaction_history", ["transactionId": String(last), "version": "v1"], 20),
            ("get_transaction_history", ["transactionId": String(last)], 20),
            ("get_all_subscription_statuses", ["transactionId": String(monthly)], 20),
            ("look_up_order_id", ["order_id": OrderID.of(transactionID: last)], 20),
            ("get_refund_history", ["transactionId": String(last)], 20),
            ("send_consumption_data", ["transaction_id": String(last), "consumption_request": ["@model": "ConsumptionRequestV1",
                "customerConsented": true, "consumptionStatus": 2, "platform": 1, "sampleContentProvided": false, "deliveryStatus": 0,
                "appAccountToken": "", "accountTenure": 3, "playTime": 4, "lifetimeDollarsRefunded": 1, "lifetimeDollarsPurchased": 5, "userStatus": 1]], 20),
            ("send_consumption_information", ["transaction_id": String(last), "consumption_request": ["@model": "ConsumptionRequest",
                "customerConsented": true, "sampleContentProvided": true, "deliveryStatus": "DELIVERED"]], 20),
            ("finish_transaction", ["transaction_id": String(last)], 20),
            ("set_app_account_token", ["original_transaction_id": String(monthly),
                                       "update_app_account_token_request": ["@model": "UpdateAppAccountTokenRequest", "appAccountToken": UUID().uuidString]], 20),
            ("extend_subscription_renewal_date", ["original_transaction_id": String(monthly), "extend_renewal_date_request": ["@model": "ExtendRenewalDateRequest",
                "extendByDays": 1, "extendReasonCode": 1, "requestIdentifier": "latency"]], 20),
            ("extend_renewal_date_for_all_active_subscribers", ["mass_extend_renewal_date_request": ["@model": "MassExtendRenewalDateRequest",
                "extendByDays": 1, "extendReasonCode": 1, "requestIdentifier": "0b7f5e6a-2d1c-4e3b-9a8f-7c6d5e4f3a2b", "productId": ID.proMonthly]], 20),
            ("get_status_of_subscription_renewal_date_extensions", ["request_identifier": "0b7f5e6a-2d1c-4e3b-9a8f-7c6d5e4f3a2b", "product_id": ID.proMonthly], 20),
            ("request_test_notification", [:], 20),
            ("get_test_notification_status", ["test_notification_token": "@14.testNotificationToken"], 20),
            ("get_notification_history", ["request": ["startDate": now - 3_600_000, "endDate": now + 3_600_000]], 20),
            ("upload_image", ["image_identifier": image, "image": png], 1),
            ("get_image_list", [:], 20),
            ("upload_message", ["message_identifier": message, "upload_message_request_body": AppleClientEndpointTests.message(image: image)], 1),
            ("get_message_list", [:], 20),
            ("configure_default_message", ["product_id": ID.proMonthly, "locale": "en-US",
                                           "default_configuration_request": ["@model": "DefaultConfigurationRequest", "messageIdentifier": message]], 20),
            ("get_default_message", ["product_id": ID.proMonthly, "locale": "en-US"], 20),
            ("delete_default_message", ["product_id": ID.proMonthly, "locale": "en-US"], 1),
            ("delete_message", ["message_identifier": message], 1),
            ("delete_image", ["image_identifier": image], 1),
            ("configure_realtime_url", ["realtime_url_request": realtime], 20),
            ("get_realtime_url", [:], 20),
            ("initiate_performance_test", ["performance_test_request": ["@model": "PerformanceTestRequest", "originalTransactionId": String(monthly)]], 1),
            ("get_performance_test_results", ["request_id": "@28.requestId"], 20),
            ("delete_realtime_url", [:], 1),
        ]
        let labelled = calls.enumerated().map { ["label": String($0.offset), "method": $0.element.0, "args": $0.element.1, "repeat": $0.element.2] as [String: Any] }
        let results = try await AppleClientTests.call(b.served, labelled)
        var table = ["| Apple's client call | status | median ms (of n) |", "|---|---|---|"]
        for (index, call) in calls.enumerated() {
            let result = results[String(index)] ?? [:]
            #expect(result["ok"] as? Bool == true, "\(call.0): \(result["error"] ?? "")")
            let version = (call.1["version"] as? String).map { "(\($0))" } ?? ""
            table.append("| `\(call.0)\(version)` | \(result["ok"] as? Bool == true ? "ok" : "\(result["error"] ?? "")") | \(result["milliseconds"] ?? "?") (\(call.2)) |")
        }
        print(table.joined(separator: "\n"))
        await b.close()
    }
}
