import Foundation
import Testing

/// What a suite needs or costs, so a run can tell its slow parts apart (docs/testing.md).
extension Tag {
    /// Drives the built `storefront` in tmux, end to end.
    @Tag public static var tmux: Self
    /// Needs a PostgreSQL server (a throwaway one the tests start with .ci/postgres, or STOREFRONT_TEST_POSTGRES).
    @Tag public static var postgres: Self
    /// Runs Apple's App Store Server Library (Python, in .venv-apple).
    @Tag public static var appleLibrary: Self
    /// Long: fuzzed inputs by the thousand, killed processes, binaries launched again and again.
    @Tag public static var slow: Self
}

/// The fast loop, `STOREFRONT_FAST=1 swift test --skip-build`: unit tests and golden screens only.
/// A plain `swift test` (what CI runs) runs everything.
public enum TestLoop {
    public static let isFast = ProcessInfo.processInfo.environment["STOREFRONT_FAST"] == "1"
}

extension Trait where Self == ConditionTrait {
    /// Beside a `.tags(.tmux / .postgres / .appleLibrary / .slow)`: the fast loop leaves the suite out.
    public static var notInFastLoop: Self { .disabled(if: TestLoop.isFast, "left out of the fast loop (STOREFRONT_FAST=1)") }
}
