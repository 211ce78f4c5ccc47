import GRDB

/// A statement and its arguments, written once for both backends. The text has a `?` for
/// each argument, in order (a PostgreSQL connection numbers them `$1`, `$2`…); values are
/// bound, never spliced into the text.
///
/// In a literal, an interpolated value is bound; a sequence of values is bound as a
/// parenthesised list, for `IN`; a `CatalogSQL` is spliced in with its own arguments.
struct CatalogSQL: ExpressibleByStringInterpolation, Sendable {
    private(set) var text: String
    private(set) var arguments: [DatabaseValue]

    /// Trusted text (a dialect's keywords, a fixed fragment) with its arguments.
    init(sql text: String, arguments: [DatabaseValue] = []) {
        precondition(text.filter { $0 == "?" }.count >= arguments.count, "fewer placeholders than arguments")
        (self.text, self.arguments) = (text, arguments)
    }

    init(stringLiteral value: String) {
        (text, arguments) = (value, [])
    }

    init(stringInterpolation: Interpolation) {
        (text, arguments) = (stringInterpolation.text, stringInterpolation.arguments)
    }

    struct Interpolation: StringInterpolationProtocol {
        var text = ""
        var arguments: [DatabaseValue] = []

        init(literalCapacity: Int, interpolationCount: Int) {
            text.reserveCapacity(literalCapacity + interpolationCount)
        }

        mutating func appendLiteral(_ literal: String) {
            text += literal
        }

        mutating func appendInterpolation(_ value: (some DatabaseValueConvertible)?) {
            text += "?"
            arguments.append(value?.databaseValue ?? .null)
        }

        /// `(?, ?, …)`, or `(NULL)` for no values (which `IN` never matches, on either backend).
        mutating func appendInterpolation<Values: Sequence>(_ values: Values) where Values.Element: DatabaseValueConvertible {
            let bound = values.map(\.databaseValue)
            text += bound.isEmpty ? "(NULL)" : "(" + Array(repeating: "?", count: bound.count).joined(separator: ", ") + ")"
            arguments += bound
        }

        mutating func appendInterpolation(_ sql: CatalogSQL) {
            text += sql.text
            arguments += sql.arguments
        }
    }

    static func + (lhs: CatalogSQL, rhs: CatalogSQL) -> CatalogSQL {
        CatalogSQL(sql: lhs.text + rhs.text, arguments: lhs.arguments + rhs.arguments)
    }

    static func += (lhs: inout CatalogSQL, rhs: CatalogSQL) {
        lhs = lhs + rhs
    }
}

extension Sequence<CatalogSQL> {
    func joined(separator: String) -> CatalogSQL {
        var joined: CatalogSQL = ""
        for (i, part) in enumerated() {
            if i > 0 { joined += CatalogSQL(sql: separator) }
            joined += part
        }
        return joined
    }
}
