import CSQLite

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Every page of a database written through the checksums VFS (`checksums.h`), and of its
/// write-ahead log, checked as read from the files themselves, a page at a time, not through
/// SQLite: a page that SQLite would not read (a free page, a frame already copied) is checked too.
package enum PageChecksums {
    /// What fails, or `nil` when every page of `path` and of `path-wal` is whole.
    package static func damage(of path: String) -> String? {
        guard let file = fopen(path, "rb") else { return "\(path) cannot be read" }
        defer { fclose(file) }
        var header = [UInt8](repeating: 0, count: 100)
        guard fread(&header, 1, 100, file) == 100, Array(header[0..<16]) == Array("SQLite format 3\0".utf8) else {
            return "\(path) has no SQLite header"
        }
        guard header[20] == UInt8(NAVREPLAY_CHECKSUMS_RESERVE) else {
            return "its pages carry no checksums (byte 20 of its header is not 8)"
        }
        guard let size = pageSize(Int(header[16]) << 8 | Int(header[17])) else { return "its header's page size is not one" }
        rewind(file)
        var page = [UInt8](repeating: 0, count: size)
        var number = 0
        while true {
            let count = fread(&page, 1, size, file)
            if count == 0 { break }
            number += 1
            guard count == size else { return "\(path) ends inside page \(number)" }
            if !whole(page, size: size) { return "page \(number)\(owner(of: Int64(number), in: path)) fails its checksum" }
        }
        return logDamage(path + "-wal", size: size)
    }

    /// Writes every page's checksum again, in place (a database of no write-ahead log): for a
    /// copy whose pages another program wrote (the fuzz seeds, which SQLite's VACUUM shrinks to
    /// 512-byte pages through a temporary database that carries no checksums).
    package static func seal(_ path: String) -> Bool {
        guard let file = fopen(path, "r+b") else { return false }
        defer { fclose(file) }
        var header = [UInt8](repeating: 0, count: 100)
        guard fread(&header, 1, 100, file) == 100, header[20] == UInt8(NAVREPLAY_CHECKSUMS_RESERVE),
            let size = pageSize(Int(header[16]) << 8 | Int(header[17]))
        else { return false }
        var page = [UInt8](repeating: 0, count: size)
        var offset = 0
        while fseek(file, offset, SEEK_SET) == 0, fread(&page, 1, size, file) == size {
            var sum = page.withUnsafeBufferPointer { navreplay_checksums_of($0.baseAddress!, Int32(size - 8)) }
            guard fseek(file, offset + size - 8, SEEK_SET) == 0, fwrite(&sum, 8, 1, file) == 1 else { return false }
            offset += size
        }
        return true
    }

    private static func logDamage(_ path: String, size: Int) -> String? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var header = [UInt8](repeating: 0, count: 32)
        guard fread(&header, 1, 32, file) == 32 else { return nil }
        let logSize = Int(header[8]) << 24 | Int(header[9]) << 16 | Int(header[10]) << 8 | Int(header[11])
        guard logSize == size else { return "\(path) has another page size (\(logSize)) than the store (\(size))" }
        var frame = [UInt8](repeating: 0, count: 24 + size)
        var number = 0
        while fread(&frame, 1, frame.count, file) == frame.count {
            number += 1
            if !whole(Array(frame[24...]), size: size) { return "frame \(number) of \(path) fails its checksum" }
        }
        return nil
    }

    /// " (table NAME)" for the table or index that page `page` of `path` belongs to, as SQLite's
    /// `dbstat` finds it without checking checksums; empty when it cannot tell.
    package static func owner(of page: Int64, in path: String) -> String {
        guard let database = try? SQLiteDatabase(immutable: path, checksums: false),
            let statement = try? database.prepare("SELECT name FROM dbstat WHERE pageno = ?")
        else { return "" }
        var name = ""
        try? statement.forEachRow([.integer(page)]) { name = $0.text(0) }
        return name.isEmpty ? "" : " (of \(name))"
    }

    private static func pageSize(_ field: Int) -> Int? {
        let size = field == 1 ? 65_536 : field
        return size >= 512 && size & (size - 1) == 0 ? size : nil
    }

    private static func whole(_ page: [UInt8], size: Int) -> Bool {
        page.withUnsafeBufferPointer { navreplay_checksums_page_ok($0.baseAddress!, Int32(size)) != 0 }
    }
}
