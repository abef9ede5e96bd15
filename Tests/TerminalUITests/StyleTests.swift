import Testing
@testable import TerminalUI

@Suite("Colour mode")
struct StyleTests {
    @Test("NO_COLOR with any value, even empty, means monochrome")
    func noColor() {
        #expect(ColorMode.detect(environment: ["NO_COLOR": "", "TERM": "xterm-256color"]) == .monochrome)
        #expect(ColorMode.detect(environment: ["NO_COLOR": "1"]) == .monochrome)
    }

    @Test("TERM=dumb and --no-color mean monochrome; otherwise colour")
    func termAndFlag() {
        #expect(ColorMode.detect(environment: ["TERM": "dumb"]) == .monochrome)
        #expect(ColorMode.detect(environment: ["TERM": "xterm"], arguments: ["storefront", "--no-color"]) == .monochrome)
        #expect(ColorMode.detect(environment: ["TERM": "xterm-256color"], arguments: ["storefront"]) == .color)
    }

    @Test("monochrome drops colours and keeps reverse video")
    func resolve() {
        let s = Style(foreground: .white, background: .blue, bold: true, reverse: true)
        #expect(s.resolved(for: .monochrome) == Style(bold: true, reverse: true))
        #expect(s.resolved(for: .color) == s)
    }
}
