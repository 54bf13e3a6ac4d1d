#if !CLI
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What `authflow` does when the package was built without its `CLI` trait,
/// which brings in the argument parser and the embedded provider: it says
/// how to build it with the trait.
@main
enum AuthflowWithoutTheCLITrait {
    static func main() {
        let message = """
            authflow: this build has no command-line tool; it needs the package's CLI trait:
              swift run --traits CLI authflow demo
              swift build -c release --traits CLI

            """
        var bytes = Array(message.utf8)
        _ = write(2, &bytes, bytes.count)
        exit(1)
    }
}
#endif
