/// Column layout by display width: turns rows of cells into aligned one-line strings
/// (draw them with `ListView` to get selection and scrolling).
public struct Table: Sendable {
    public enum Width: Sendable, Hashable {
        /// Exactly this many cells.
        case fixed(Int)
        /// As wide as the widest title or cell.
        case fit
        /// Shares the width left over by the other columns.
        case fill
    }

    public struct Column: Sendable, Hashable {
        public var title: String
        public var width: Width
        public var alignment: DisplayWidth.Alignment

        public init(_ title: String, width: Width = .fit, alignment: DisplayWidth.Alignment = .leading) {
            self.title = title
            self.width = width
            self.alignment = alignment
        }
    }

    public var columns: [Column]
    public var spacing: Int

    public init(_ columns: [Column], spacing: Int = 2) {
        self.columns = columns
        self.spacing = spacing
    }

    /// Column widths that fit in `totalWidth`: fill columns take the leftover; when even the
    /// natural widths do not fit, the widest column gives up a cell at a time.
    public func columnWidths(rows: [[String]], totalWidth: Int) -> [Int] {
        let gaps = spacing * max(0, columns.count - 1)
        var widths = columns.enumerated().map { i, column -> Int in
            switch column.width {
            case .fixed(let n): return n
            case .fit, .fill:
                return rows.map { i < $0.count ? DisplayWidth.of($0[i]) : 0 }.reduce(DisplayWidth.of(column.title), max)
            }
        }
        let fills = columns.indices.filter { columns[$0].width == .fill }
        if !fills.isEmpty {
            let fixedPart = widths.enumerated().filter { !fills.contains($0.offset) }.map(\.element).reduce(0, +)
            let leftover = max(0, totalWidth - gaps - fixedPart)
            for (n, i) in fills.enumerated() {
                widths[i] = leftover / fills.count + (n < leftover % fills.count ? 1 : 0)
            }
        }
        var excess = widths.reduce(0, +) + gaps - totalWidth
        while excess > 0, let widest = widths.indices.max(by: { widths[$0] < widths[$1] }), widths[widest] > 0 {
            widths[widest] -= 1
            excess -= 1
        }
        return widths
    }

    /// One row as a string exactly as wide as the columns, cells truncated with an ellipsis.
    public func format(_ row: [String], widths: [Int]) -> String {
        let gap = String(repeating: " ", count: spacing)
        return columns.indices.map { i in
            DisplayWidth.pad(i < row.count ? row[i] : "", toWidth: widths[i], alignment: columns[i].alignment)
        }.joined(separator: gap)
    }

    /// The header row.
    public func header(widths: [Int]) -> String { format(columns.map(\.title), widths: widths) }
}
