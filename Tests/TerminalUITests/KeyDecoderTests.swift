import CNcursesW
import Testing
@testable import TerminalUI

@Suite("Key decoding")
struct KeyDecoderTests {
    static let characterTable: [(UInt32, Key)] = [
        (10, .enter), (13, .enter), (27, .escape), (9, .tab),
        (127, .backspace), (8, .backspace),
        (3, .control("c")), (1, .control("a")), (26, .control("z")), (17, .control("q")),
        (0x71, .character("q")), (0x20, .character(" ")), (0x5546, .character("商")), (0x1F600, .character("😀")),
    ]

    @Test("wide characters from get_wch decode by the table", arguments: characterTable)
    func characters(value: UInt32, key: Key) {
        #expect(KeyDecoder.decode(status: OK, value: value) == key)
    }

    static let codeTable: [(Int32, Key?)] = [
        (KEY_UP, .up), (KEY_DOWN, .down), (KEY_LEFT, .left), (KEY_RIGHT, .right),
        (KEY_ENTER, .enter), (KEY_BACKSPACE, .backspace), (KEY_DC, .delete),
        (KEY_HOME, .home), (KEY_END, .end), (KEY_PPAGE, .pageUp), (KEY_NPAGE, .pageDown),
        (KEY_BTAB, .backTab), (KEY_RESIZE, .resize),
        (shim_KEY_F(1), .function(1)), (shim_KEY_F(12), .function(12)),
        (KEY_MOUSE, nil),
    ]

    @Test("key codes (KEY_CODE_YES) decode by the table; mouse is ignored", arguments: codeTable)
    func codes(code: Int32, key: Key?) {
        #expect(KeyDecoder.decode(status: KEY_CODE_YES, value: UInt32(bitPattern: code)) == key)
    }

    @Test("ERR, an empty read, decodes to nothing")
    func err() {
        #expect(KeyDecoder.decode(status: ERR, value: 0) == nil)
    }

    @Test("key names for hints")
    func names() {
        #expect(Key.control("c").name == "Ctrl-C")
        #expect(Key.up.name == "↑")
        #expect(Key.character(" ").name == "Space")
        #expect(Key.function(5).name == "F5")
    }

    static func characters(_ text: String) -> [KeyDecoder.Raw] { text.unicodeScalars.map { .character($0) } }

    /// tmux sends `Esc [ 4 ~` for End even under `TERM=xterm`; replayed as keys it closed the
    /// help sheet (Esc) and jumped to the QA panel (4).
    @Test("an escape sequence ncurses did not recognise is swallowed whole, not replayed as Esc, [, 4, ~")
    func unknownSequencesAreSwallowed() {
        #expect(KeyDecoder.decode(Self.characters("\u{1B}[4~")) == [])
        #expect(KeyDecoder.decode(Self.characters("a\u{1B}[1;5Cb")) == [.character("a"), .character("b")])
        #expect(KeyDecoder.decode(Self.characters("\u{1B}OPq")) == [.character("q")])
        #expect(KeyDecoder.decode(Self.characters("\u{1B}[200~x")) == [.character("x")])
    }

    @Test("Esc alone, or before an ordinary key (Alt-key), is still Esc")
    func escapeAloneIsEscape() {
        #expect(KeyDecoder.decode(Self.characters("\u{1B}")) == [.escape])
        #expect(KeyDecoder.decode(Self.characters("\u{1B}q")) == [.escape, .character("q")])
        #expect(KeyDecoder.decode(Self.characters("\u{1B}\u{1B}")) == [.escape, .escape])
    }

    @Test("decoded key codes and mouse reports keep their order in a batch")
    func batchOrder() {
        let batch: [KeyDecoder.Raw] = [.code(KEY_END), .mouse(Mouse(.click, x: 3, y: 0)), .character("j")]
        #expect(KeyDecoder.decode(batch) == [.end, .mouse(Mouse(.click, x: 3, y: 0)), .character("j")])
    }

    @Test("button 1 pressed is a click; buttons 4 and 5 are the wheel; releases are ignored")
    func mouseReports() {
        #expect(KeyDecoder.mouse(buttons: shim_BUTTON1_PRESSED(), x: 5, y: 2) == Mouse(.click, x: 5, y: 2))
        #expect(KeyDecoder.mouse(buttons: shim_BUTTON4_PRESSED(), x: 0, y: 0)?.kind == .wheelUp)
        #expect(KeyDecoder.mouse(buttons: shim_BUTTON5_PRESSED(), x: 0, y: 0)?.kind == .wheelDown)
        #expect(KeyDecoder.mouse(buttons: 0, x: 0, y: 0) == nil)
    }

    @Test("in a non-UTF-8 locale, boxes, arrows and marks become ASCII; text is left alone")
    func asciiFallback() {
        #expect("┌─│┘↑↓›✓⚠…".map { ASCIIFallback.text(String($0)) }.joined() == "+-|+^v>*!.")
        #expect(ASCIIFallback.text("商") == "商")
        #expect(ASCIIFallback.text("é") == "é")
        #expect(ASCIIFallback.table.keys.allSatisfy { DisplayWidth.of(String($0)) == 1 }, "a look-alike takes the cell it replaces")
    }
}
