import Testing
@testable import TerminalUI

@Suite("Display width")
struct DisplayWidthTests {
    @Test("ASCII letters take one cell each")
    func ascii() {
        #expect(DisplayWidth.of("Hello") == 5)
        #expect(DisplayWidth.of("") == 0)
    }

    @Test("CJK ideographs, kana, Hangul and full-width forms take two cells")
    func wide() {
        #expect(DisplayWidth.of("商店") == 4)
        #expect(DisplayWidth.of("カタカナ") == 8)
        #expect(DisplayWidth.of("ひらがな") == 8)
        #expect(DisplayWidth.of("한국어") == 6)
        #expect(DisplayWidth.of("ＡＢ") == 4)
        #expect(DisplayWidth.of("。") == 2)
    }

    @Test("emoji with emoji presentation take two cells, including VS16 and ZWJ sequences and flags")
    func emoji() {
        #expect(DisplayWidth.of("😀") == 2)
        #expect(DisplayWidth.of("❤️") == 2)  // U+2764 U+FE0F
        #expect(DisplayWidth.of("❤") == 1)  // text presentation by default
        #expect(DisplayWidth.of("👩‍💻") == 2)
        #expect(DisplayWidth.of("🇯🇵") == 2)
        #expect(DisplayWidth.of("👍🏽") == 2)
    }

    @Test("combining marks, zero-width joiners and controls take no cells")
    func zero() {
        #expect(DisplayWidth.of("e\u{301}") == 1)  // e + combining acute: one grapheme
        #expect(DisplayWidth.of("\u{301}" as Unicode.Scalar) == 0)
        #expect(DisplayWidth.of("\u{200D}" as Unicode.Scalar) == 0)
        #expect(DisplayWidth.of("\u{FE0F}" as Unicode.Scalar) == 0)
        #expect(DisplayWidth.of("a\tb") == 2)
        #expect(DisplayWidth.of("한") == 2)  // precomposed
        #expect(DisplayWidth.of("\u{1112}\u{1161}\u{11AB}") == 2)  // conjoining jamo: one syllable
    }

    @Test("truncate cuts by display width and ends with an ellipsis")
    func truncate() {
        #expect(DisplayWidth.truncate("Hello, world", toWidth: 8) == "Hello, …")
        #expect(DisplayWidth.truncate("Hello", toWidth: 5) == "Hello")
        #expect(DisplayWidth.truncate("商店商店", toWidth: 6) == "商店…")
        #expect(DisplayWidth.truncate("商店商店", toWidth: 4) == "商…")  // "商店" + … would be 5
        #expect(DisplayWidth.truncate("abc", toWidth: 0) == "")
        #expect(DisplayWidth.truncate("abc", toWidth: 2, ellipsis: "...") == "ab")
    }

    @Test("pad aligns to an exact width")
    func pad() {
        #expect(DisplayWidth.pad("商", toWidth: 4) == "商  ")
        #expect(DisplayWidth.pad("ab", toWidth: 4, alignment: .trailing) == "  ab")
        #expect(DisplayWidth.pad("ab", toWidth: 5, alignment: .center) == " ab  ")
        #expect(DisplayWidth.pad("abcdef", toWidth: 4) == "abc…")
    }

    @Test("wrap breaks English at spaces and cuts words longer than a line")
    func wrapEnglish() {
        #expect(DisplayWidth.wrap("The quick brown fox jumps over the lazy dog", width: 10)
            == ["The quick", "brown fox", "jumps over", "the lazy", "dog"])
        #expect(DisplayWidth.wrap("abcdefghij", width: 4) == ["abcd", "efgh", "ij"])
        #expect(DisplayWidth.wrap("one\n\ntwo", width: 10) == ["one", "", "two"])
        #expect(DisplayWidth.wrap("", width: 10) == [""])
    }

    @Test("wrap breaks Chinese between any two characters and keeps closing punctuation on its line")
    func wrapChinese() {
        let lines = DisplayWidth.wrap("购买一百枚金币。立即到账", width: 8)
        #expect(lines == ["购买一百", "枚金币。", "立即到账"])
        #expect(lines.allSatisfy { DisplayWidth.of($0) <= 8 })
        #expect(DisplayWidth.wrap("价格: 30元 每月", width: 6) == ["价格:", "30元", "每月"])
        #expect(DisplayWidth.wrap("商店abc", width: 5) == ["商店", "abc"])
    }
}
