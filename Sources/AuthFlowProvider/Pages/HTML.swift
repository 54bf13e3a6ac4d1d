#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow

/// Escaping and the page frame for the provider's few HTML pages.
enum HTML {
    /// Escapes text for element content and quoted attribute values.
    static func escape(_ text: String) -> String { HTMLText.escaped(text) }

    /// A complete page; `body` must already be escaped HTML.
    static func page(title: String, body: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
        <title>\(escape(title))</title>
        <style>body{font:16px system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}
        label{display:block;margin:.6rem 0}input{font:inherit;width:100%}button{font:inherit;margin:.8rem .4rem 0 0}
        .error{color:#b00020}</style></head>
        <body><h1>\(escape(title))</h1>
        \(body)
        </body></html>
        """
    }

    /// An error page (never a redirect: the redirect URI could not be trusted).
    static func errorPage(_ code: String, _ description: String) -> ProviderResponse {
        .html(
            page(title: "Sign-in error", body: "<p class=\"error\"><strong>\(escape(code))</strong>: \(escape(description))</p>"),
            status: 400)
    }
}
#endif
