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
}
