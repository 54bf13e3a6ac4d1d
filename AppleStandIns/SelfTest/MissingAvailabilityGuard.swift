// expect(iOS): is only available in AF_iOS_17_4
// expect(macOS): is only available in AF_macOS_14_4
// expect(visionOS): is only available in AF_visionOS_1_1
// An https callback (iOS 17.4, macOS 14.4, visionOS 1.1) without `if #available`.
import AuthenticationServices
import Foundation

func makeSession(_ url: URL) -> ASWebAuthenticationSession {
    ASWebAuthenticationSession(url: url, callback: .https(host: "app.example.com", path: "/callback"), completionHandler: { _, _ in })
}
