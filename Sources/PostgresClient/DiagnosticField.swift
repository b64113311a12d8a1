import CPostgreSQL

/// A field code of
/// [`PQresultErrorField`](https://www.postgresql.org/docs/15/libpq-exec.html#LIBPQ-PQRESULTERRORFIELD).
///
/// libpq defines the codes as character-literal macros (`#define PG_DIAG_SQLSTATE 'C'` in postgres_ext.h),
/// which Swift does not import, so the letters are repeated here.
struct DiagnosticField {
    /// The `int fieldcode` argument.
    let code: Int32

    private init(_ letter: Unicode.Scalar) {
        code = Int32(letter.value)
    }

    /// `PG_DIAG_SEVERITY_NONLOCALIZED`: `ERROR`, `NOTICE`, … never translated.
    static let severity = DiagnosticField("V")
    /// `PG_DIAG_SQLSTATE`.
    static let sqlState = DiagnosticField("C")
    /// `PG_DIAG_MESSAGE_PRIMARY`.
    static let message = DiagnosticField("M")
    /// `PG_DIAG_MESSAGE_DETAIL`.
    static let detail = DiagnosticField("D")
    /// `PG_DIAG_MESSAGE_HINT`.
    static let hint = DiagnosticField("H")
    /// `PG_DIAG_CONSTRAINT_NAME`.
    static let constraint = DiagnosticField("n")

    /// The field's value in `result`, copied out of libpq's memory, or nil when the server did not send it.
    func value(in result: OpaquePointer) -> String? {
        // SAFETY: the returned pointer lives as long as `result`, which the caller holds during this call;
        // it is copied into a String before returning.
        guard let text = PQresultErrorField(result, code) else { return nil }
        return String(cString: text)
    }
}
