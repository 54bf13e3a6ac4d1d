import AuthFlow

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The one-time page that sends the browser to the provider's
/// `end_session_endpoint` by POST (RP-Initiated Logout 1.0 §2 allows it).
///
/// The browser opener gets only this page's loopback URL, whose path is a
/// fresh random value; the ID token (`id_token_hint`) travels in the page's
/// form, never on a command line, in a URL or in browser history. The page is
/// served once (``LoopbackListener/endSessionPage(for:)``), not cached, sends
/// no referrer, and runs exactly one inline script, allowed by a per-page
/// nonce, that submits the form; without script a button does it.
struct EndSessionPage {
    let response: Response
    let path: String

    init(_ request: EndSessionRequest) {
        path = "/end-session/" + SecureRandom.token()
        let nonce = SecureRandom.token()
        let fields = request.parameters.map {
            #"<input type="hidden" name="\#(Self.escape($0.name))" value="\#(Self.escape($0.value))">"#
        }.joined()
        // One line: the form and its fields, then the script that submits it.
        let page =
            #"<!doctype html><html><head><meta charset="utf-8"><title>Signing out</title>"#
            + #"<style>body{font-family:system-ui,sans-serif;margin:4em auto;max-width:32em;text-align:center}</style>"#
            + #"</head><body><h1>Signing out</h1><p>Taking you to the provider to end the session…</p>"#
            + #"<form method="post" action="\#(Self.escape(request.endpoint.absoluteString))">\#(fields)"#
            + #"<noscript><button type="submit">Continue</button></noscript></form>"#
            + #"<script nonce="\#(nonce)">document.forms[0].submit()</script></body></html>"#
        response = Response(
            .ok, page: page,
            contentSecurityPolicy: "default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-\(nonce)'")
    }

    /// Text for an HTML attribute value in double quotes.
    static func escape(_ text: String) -> String { HTMLText.escaped(text) }
}
