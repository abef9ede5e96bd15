/// A unified diff of two texts, line by line (longest common subsequence), so a golden screen
/// that changed shows what changed rather than two whole screens.
enum LineDiff {
    enum Op: Equatable {
        case same(String), removed(String), added(String)
    }

    /// The edit script from `old` to `new`: lines both keep, lines only `old` has, lines only `new` has.
    static func ops(_ old: [Substring], _ new: [Substring]) -> [Op] {
        // common[i][j]: the length of the longest common subsequence of old[i...] and new[j...].
        var common = Array(repeating: Array(repeating: 0, count: new.count + 1), count: old.count + 1)
        for i in old.indices.reversed() {
            for j in new.indices.reversed() {
                common[i][j] = old[i] == new[j] ? common[i + 1][j + 1] + 1 : max(common[i + 1][j], common[i][j + 1])
            }
        }
        var ops: [Op] = [], i = 0, j = 0
        while i < old.count || j < new.count {
            if i < old.count, j < new.count, old[i] == new[j] {
                ops.append(.same(String(old[i]))); i += 1; j += 1
            } else if i < old.count, j == new.count || common[i + 1][j] >= common[i][j + 1] {
                ops.append(.removed(String(old[i]))); i += 1  // removals first, as diff prints them
            } else {
                ops.append(.added(String(new[j]))); j += 1
            }
        }
        return ops
    }

    /// `diff -u` style: `---`/`+++` headers, then hunks of changes with `context` unchanged lines
    /// around them; hunks closer than that are merged. Empty when the texts are equal.
    static func unified(from old: String, to new: String, oldName: String = "expected", newName: String = "actual",
                        context: Int = 3) -> String {
        let ops = ops(old.split(separator: "\n", omittingEmptySubsequences: false),
                      new.split(separator: "\n", omittingEmptySubsequences: false))
        let changes = ops.indices.filter { if case .same = ops[$0] { false } else { true } }
        guard !changes.isEmpty else { return "" }
        var hunks: [Range<Int>] = []
        for c in changes {
            let range = max(0, c - context)..<min(ops.count, c + context + 1)
            if let last = hunks.last, last.upperBound >= range.lowerBound {
                hunks[hunks.count - 1] = last.lowerBound..<range.upperBound
            } else {
                hunks.append(range)
            }
        }
        // Line numbers (0-based) in old and new where each op starts.
        var oldLine = [0], newLine = [0]
        for op in ops {
            oldLine.append(oldLine.last! + (op.isAdded ? 0 : 1))
            newLine.append(newLine.last! + (op.isRemoved ? 0 : 1))
        }
        var out = ["--- \(oldName)", "+++ \(newName)"]
        for hunk in hunks {
            let oldCount = oldLine[hunk.upperBound] - oldLine[hunk.lowerBound]
            let newCount = newLine[hunk.upperBound] - newLine[hunk.lowerBound]
            // As diff does: an empty side names the line before it.
            let oldStart = oldLine[hunk.lowerBound] + (oldCount > 0 ? 1 : 0)
            let newStart = newLine[hunk.lowerBound] + (newCount > 0 ? 1 : 0)
            out.append("@@ -\(oldStart),\(oldCount) +\(newStart),\(newCount) @@")
            out += ops[hunk].map(\.line)
        }
        return out.joined(separator: "\n") + "\n"
    }
}

extension LineDiff.Op {
    var isAdded: Bool { if case .added = self { true } else { false } }
    var isRemoved: Bool { if case .removed = self { true } else { false } }

    var line: String {
        switch self {
        case .same(let s): " " + s
        case .removed(let s): "-" + s
        case .added(let s): "+" + s
        }
    }
}
