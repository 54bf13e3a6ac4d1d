/// How much of one request the loopback listener reads.
///
/// Each limit is enforced while the request arrives: the listener refuses a
/// request as soon as it is known to be too large and never holds more than
/// the limit in memory.
struct RequestLimits: Sendable {
    /// The request target (path and query), in bytes: a callback's query
    /// holds a code, a state and a few short parameters. Longer: 414.
    var target = 8 * 1024
    /// All header lines together (names, values and line ends), in bytes.
    /// Larger: 400.
    var headers = 16 * 1024
    /// The number of header fields. More: 400.
    var headerCount = 100
    /// A request body: a form_post body of Sign in with Apple carries an ID
    /// token and the user's name as JSON; 64 KiB leaves ample room. Larger: 413.
    var body = 64 * 1024
}
