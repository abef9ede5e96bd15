// StoreKitTest's header imports StoreKit's, so a test file that imports only StoreKitTest reads
// `Product` and `Transaction` too; this keeps such files compiling here.
@_exported import StoreKit
