import AuthFlowTestSupport
import Testing

@testable import AuthFlow

/// The one HTML escape of the listener's and the provider's pages.
@Suite struct HTMLTextTests {
    @Test func markupCharactersBecomeReferences() {
        #expect(HTMLText.escaped(#"<a href="x" title='y'>&</a>"#) == "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;")
        #expect(HTMLText.escaped("plain é ü 日本") == "plain é ü 日本")
    }

    /// A quote followed by a combining mark is one Character; escaping by
    /// Character would keep the quote and let a login_hint out of its
    /// attribute (`value="…" onfocus=…`).
    @Test func aQuoteBeforeACombiningMarkIsStillEscaped() {
        let hint = "\"\u{0301} autofocus onfocus=alert(1) x=\"\u{0301}"
        let escaped = HTMLText.escaped(hint)
        #expect(!escaped.unicodeScalars.contains("\""))
        #expect(escaped == "&quot;\u{0301} autofocus onfocus=alert(1) x=&quot;\u{0301}")
    }
}
