import Foundation
import CLibCrypto

/// SHA-384 through libcrypto.
enum SHA384Digest {
    static func hash(_ data: Data) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 48)
        data.withUnsafeBytes { _ = SHA384($0.baseAddress?.assumingMemoryBound(to: UInt8.self), data.count, &digest) }
        return digest
    }
}
