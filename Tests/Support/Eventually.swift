/// Waits (up to `limit`, counted in looks of 10 ms rather than by the clock: with the whole suite
/// running at once a look takes longer) for something another task or process brings about.
public func eventually(within limit: Duration = .seconds(3), _ condition: () async -> Bool) async -> Bool {
    for _ in 0..<Int(limit / .milliseconds(10)) {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return false
}
