// expect(iOS): main actor-isolated
// UIApplication.shared read from a nonisolated synchronous function.
import UIKit

func application() -> UIApplication {
    UIApplication.shared
}
