import Foundation
import StoreSigning

/// Where a page of results ended, as the opaque `revision` (or `paginationToken`) Apple's server hands
/// back: a position in the order results are listed in. Asking again with it gives the next page, and,
/// once there are no more, whatever changed since.
struct PagePosition: Comparable {
    /// The sort key's first part, in milliseconds (a transaction's last modification, a notification's date).
    var date: Int64
    /// Ties broken by ID, so the order is total and no result is skipped or repeated between pages.
    var id: Int64

    static func < (a: PagePosition, b: PagePosition) -> Bool { (a.date, a.id) < (b.date, b.id) }

    static let start = PagePosition(date: Int64.min, id: Int64.min)
    static let end = PagePosition(date: Int64.max, id: Int64.max)

    var token: String { Base64URL.encode(Data("v1:\(date):\(id)".utf8)) }

    init(date: Int64, id: Int64) {
        self.date = date
        self.id = id
    }

    /// Reads a token this server made; nil for anything else.
    init?(token: String) {
        guard let data = Base64URL.decode(token), let text = String(data: data, encoding: .utf8) else { return nil }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "v1", let date = Int64(parts[1]), let id = Int64(parts[2]) else { return nil }
        self.init(date: date, id: id)
    }
}

/// One page of results after a position, in ascending or descending order.
struct Page<Item> {
    static var size: Int { 20 }

    var items: [Item]
    var hasMore: Bool
    /// Where this page ended (the position given when it is empty).
    var position: PagePosition

    init(_ all: [Item], position key: (Item) -> PagePosition, after start: PagePosition?, ascending: Bool = true) {
        let sorted = all.map { (key($0), $0) }.sorted { ascending ? $0.0 < $1.0 : $1.0 < $0.0 }
        let start = start ?? (ascending ? .start : .end)
        let rest = sorted.filter { ascending ? start < $0.0 : $0.0 < start }
        items = rest.prefix(Self.size).map(\.1)
        hasMore = rest.count > Self.size
        position = rest.prefix(Self.size).last?.0 ?? start
    }
}
