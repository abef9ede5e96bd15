/// A terminal size in cells.
public struct Size: Sendable, Hashable {
    public var width: Int
    public var height: Int
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}

/// A rectangle of cells. Splitting and insetting never produce negative sizes.
public struct Rect: Sendable, Hashable {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = max(0, width)
        self.height = max(0, height)
    }

    public init(size: Size) { self.init(x: 0, y: 0, width: size.width, height: size.height) }

    public var size: Size { Size(width: width, height: height) }
    public var isEmpty: Bool { width == 0 || height == 0 }
    public var maxX: Int { x + width }
    public var maxY: Int { y + height }

    public func contains(x px: Int, y py: Int) -> Bool { px >= x && px < maxX && py >= y && py < maxY }

    /// Shrinks by `dx` columns on the left and right and `dy` rows at the top and bottom.
    public func inset(dx: Int, dy: Int) -> Rect {
        Rect(x: x + dx, y: y + dy, width: width - 2 * dx, height: height - 2 * dy)
    }

    public func inset(by n: Int) -> Rect { inset(dx: n, dy: n) }

    /// The `i`-th row of this rectangle.
    public func row(_ i: Int) -> Rect { Rect(x: x, y: y + i, width: width, height: i < height ? 1 : 0) }

    /// Splits off `n` rows at the top: (top, rest).
    public func splitTop(_ n: Int) -> (Rect, Rect) {
        let n = min(max(0, n), height)
        return (Rect(x: x, y: y, width: width, height: n), Rect(x: x, y: y + n, width: width, height: height - n))
    }

    /// Splits off `n` rows at the bottom: (rest, bottom).
    public func splitBottom(_ n: Int) -> (Rect, Rect) {
        let (top, bottom) = splitTop(height - min(max(0, n), height))
        return (top, bottom)
    }

    /// Splits off `n` columns on the left: (left, rest).
    public func splitLeft(_ n: Int) -> (Rect, Rect) {
        let n = min(max(0, n), width)
        return (Rect(x: x, y: y, width: n, height: height), Rect(x: x + n, y: y, width: width - n, height: height))
    }

    /// Splits off `n` columns on the right: (rest, right).
    public func splitRight(_ n: Int) -> (Rect, Rect) { splitLeft(width - min(max(0, n), width)) }

    /// Divides into consecutive rows of the given heights; the last part takes what is left.
    public func rows(_ heights: [Int]) -> [Rect] {
        var rest = self
        var parts: [Rect] = []
        for h in heights {
            let (top, bottom) = rest.splitTop(h)
            parts.append(top)
            rest = bottom
        }
        return parts + [rest]
    }

    /// Divides into consecutive columns of the given widths; the last part takes what is left.
    public func columns(_ widths: [Int]) -> [Rect] {
        var rest = self
        var parts: [Rect] = []
        for w in widths {
            let (left, right) = rest.splitLeft(w)
            parts.append(left)
            rest = right
        }
        return parts + [rest]
    }

    /// A rectangle of the given size centred in this one, clamped to fit.
    public func centered(width w: Int, height h: Int) -> Rect {
        let w = min(max(0, w), width)
        let h = min(max(0, h), height)
        return Rect(x: x + (width - w) / 2, y: y + (height - h) / 2, width: w, height: h)
    }
}
