import Foundation
import GRDB
import NIOCore
import PostgresNIO

/// A PostgreSQL catalog's connection for the catalog layer's named requests: `?`
/// placeholders numbered `$1`, `$2`…, each value sent as text of no declared type, so
/// that the server reads it as its place in the statement asks (a column's type, a
/// function's argument), as SQLite's dynamic typing does; results decoded into GRDB's
/// values, so records decode from either backend alike.
extension PostgresSession: CatalogConnection {
    var dialect: CatalogDialect { .postgres }

    func forEachRow(_ sql: CatalogSQL, _ body: (CatalogRow) throws -> Bool) throws {
        try forEach(of: try query(Self.numbered(sql.text), sql.arguments.map(Self.untyped)), body)
    }

    /// Through a cursor, ``rowsPerPage`` rows a fetch, when a transaction is open (a
    /// cursor lives in one); else as ``forEachRow(_:_:)``. Cursors opened inside the body
    /// (a nested call) take the next name.
    func forEachOfManyRows(_ sql: CatalogSQL, _ body: (CatalogRow) throws -> Bool) throws {
        guard inTransaction else { return try forEachRow(sql, body) }
        let cursor = "camlib_rows_\(openCursors)"
        try command("DECLARE \(cursor) NO SCROLL CURSOR FOR " + Self.numbered(sql.text), sql.arguments.map(Self.untyped))
        openCursors += 1
        defer {
            openCursors -= 1
            // Fails, harmlessly, in a transaction that failed: it ends with it.
            _ = try? command("CLOSE \(cursor)")
        }
        while true {
            let page = try query("FETCH \(Self.rowsPerPage) FROM \(cursor)")
            var stopped = false
            try forEach(of: page) { row in
                stopped = try !body(row)
                return !stopped
            }
            if stopped || page.count < Self.rowsPerPage { return }
        }
    }

    /// The rows ``forEachOfManyRows(_:_:)`` holds at a time.
    static let rowsPerPage = 2_000

    private func forEach(of rows: [PostgresRow], _ body: (CatalogRow) throws -> Bool) throws {
        guard let first = rows.first else { return }
        let columns = first.map(\.columnName)
        for row in rows {
            guard try body(CatalogRow(columns: columns, values: try row.map(Self.value))) else { return }
        }
    }

    @discardableResult
    func execute(_ sql: CatalogSQL) throws -> Int {
        try command(Self.numbered(sql.text), sql.arguments.map(Self.untyped))
    }

    /// `sql` with its `?` placeholders numbered, outside quotes and comments.
    static func numbered(_ sql: String) -> String {
        var out = "", n = 0
        var quote: Character?
        var comment: Character?  // "-" for a line comment, "*" for a block comment
        var previous: Character = " "
        for c in sql {
            defer { previous = c }
            if let open = comment {
                out.append(c)
                if (open == "-" && c == "\n") || (open == "*" && previous == "*" && c == "/") { comment = nil }
                continue
            }
            if let open = quote {
                out.append(c)
                if c == open { quote = nil }
                continue
            }
            switch c {
            case "'", "\"": quote = c
            case "-" where previous == "-": comment = "-"
            case "*" where previous == "/": comment = "*"
            case "?":
                n += 1
                out += "$\(n)"
                continue
            default: break
            }
            out.append(c)
        }
        return out
    }

    /// A value as text of no declared type, or nil for NULL.
    static func untyped(_ value: DatabaseValue) -> (any PostgresThrowingDynamicTypeEncodable)? {
        switch value.storage {
        case .null: nil
        case .int64(let n): UntypedText(text: String(n))
        case .double(let x): UntypedText(text: x.isFinite ? "\(x)" : x.isNaN ? "NaN" : x < 0 ? "-Infinity" : "Infinity")
        case .string(let s): UntypedText(text: s)
        case .blob(let data): UntypedText(text: "\\x" + data.map { String(format: "%02x", $0) }.joined())
        }
    }

    /// A cell as GRDB's value: integers and booleans as integers, floating point and
    /// `numeric` as doubles, `bytea` as data, everything else (text, `jsonb`) as text.
    static func value(_ cell: PostgresCell) throws -> DatabaseValue {
        guard var bytes = cell.bytes else { return .null }
        switch cell.dataType {
        case .int2, .int4, .int8: return try cell.decode(Int64.self).databaseValue
        case .bool: return try (cell.decode(Bool.self) ? 1 : 0 as Int64).databaseValue
        case .float4, .float8: return try cell.decode(Double.self).databaseValue
        case .numeric: return (Double(try cell.decode(Decimal.self).description) ?? .nan).databaseValue
        case .bytea: return Data(bytes.readableBytesView).databaseValue
        case .jsonb where cell.format == .binary:
            bytes.moveReaderIndex(forwardBy: 1)  // the jsonb format's version byte
            return (bytes.readString(length: bytes.readableBytes) ?? "").databaseValue
        default: return (bytes.readString(length: bytes.readableBytes) ?? "").databaseValue
        }
    }
}

/// A statement argument as text whose type the server infers from where it stands.
struct UntypedText: PostgresEncodable {
    static var psqlType: PostgresDataType { PostgresDataType(0) }
    static var psqlFormat: PostgresFormat { .text }
    let text: String

    func encode<JSONEncoder: PostgresJSONEncoder>(into byteBuffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        byteBuffer.writeString(text)
    }
}
