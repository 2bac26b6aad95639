#ifndef CNAVSUPPORT_SHORTHAND_H
#define CNAVSUPPORT_SHORTHAND_H

// The loops of `LineShorthand` (NavLog/LineShorthand.swift), which says what the shorthand is.
//
// In C because they need the processor's byte-compare-to-bitmask (SSE2 `movemask`), which
// Swift's SIMD types do not expose: the quotes, commas, braces and spaces of 64 bytes are found
// in a few instructions, and only the quotes that may open a key are visited. Callgrind on the
// 10 MB profile input, through the copying path (BENCHMARKS.md): about 1,940 instructions a
// line to shorten and 690 to expand, against 2,550 and 840 for the Swift loops this replaced
// (which visited every quote and compared word by word). Other processors use the portable
// word-at-a-time masks below, which a test compares with these.
//
// Values are packed a word at a time (`navreplay_pack8`): packing a key's UUID or timestamp
// costs about 410 instructions a line and unpacking 460 on the 10 MB profile input (callgrind),
// and saves 27% of the partition bytes: on a 4 GB log with `--memory-limit 128M`, 67 MB written
// to disk instead of 1,870 MB, and 19 s instead of 22 s (BENCHMARKS.md).
//
// Header-only like shim.h, and without state: the table is made and owned by Swift.

#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define NAVREPLAY_SHORTHAND_MARKER 0x01
/// Room for each pattern (the longest is shorter): patterns are copied as two 16-byte words.
#define NAVREPLAY_SHORTHAND_ROOM 32
/// Codes after the marker that are not entries: a key's value packed in binary, when it is a
/// UUID (`"` + 36 lowercase characters + `"`, 38 bytes, as 16) or a UTC timestamp with
/// milliseconds (`"YYYY-MM-DDTHH:MM:SS.mmmZ"`, 26 bytes, as 9): the values of `event_id`,
/// `correlation_id` and `timestamp` in practice, 102 of the 190 bytes of a benchmark line's
/// shorthand with the keys alone.
#define NAVREPLAY_SHORTHAND_UUID 0xFF
#define NAVREPLAY_SHORTHAND_TIME 0xFE
#define NAVREPLAY_SHORTHAND_ENTRIES 254
#define NAVREPLAY_SHORTHAND_SLOTS 256

typedef struct {
    /// Each entry's pattern, zero-padded to its room, and its length.
    uint8_t patterns[NAVREPLAY_SHORTHAND_ENTRIES][NAVREPLAY_SHORTHAND_ROOM];
    uint8_t lengths[NAVREPLAY_SHORTHAND_ENTRIES];
    /// Candidates by slot (`navreplay_shorthand_slot`): keys by their quote and the three bytes
    /// after it, event names by their value's.
    uint16_t key_start[NAVREPLAY_SHORTHAND_SLOTS];
    uint8_t key_count[NAVREPLAY_SHORTHAND_SLOTS];
    uint16_t name_start[NAVREPLAY_SHORTHAND_SLOTS];
    uint8_t name_count[NAVREPLAY_SHORTHAND_SLOTS];
    uint8_t candidates[NAVREPLAY_SHORTHAND_ENTRIES];
    /// Entries below `keys` are `"key":`; from it on, `"event_name":"<name>"`.
    int entries;
    int keys;
    int event_name_key;
} navreplay_shorthand_table;

/// The slot of the pattern whose quote is at `quote` (four bytes readable): a multiplicative
/// hash of the quote and the three bytes after it.
static inline unsigned navreplay_shorthand_slot(const uint8_t *quote) {
    uint32_t word;
    memcpy(&word, quote, 4);
    return (word * 0x9E3779B1u) >> 24;
}

/// Fills `table` from `keys + names` patterns laid end to end in `flat` (`lengths` each). Names
/// are `"event_name":"<name>"`, and `event_name_key` is the entry of `"event_name":`. Returns
/// 0, or -1 when a pattern does not fit (too many, too short or too long).
static inline int navreplay_shorthand_build(
    navreplay_shorthand_table *table, const uint8_t *flat, const long *lengths, int keys, int names, int event_name_key
) {
    memset(table, 0, sizeof *table);
    int entries = keys + names;
    if (entries > NAVREPLAY_SHORTHAND_ENTRIES || event_name_key < 0 || event_name_key >= keys) return -1;
    long key_length = lengths[event_name_key];
    unsigned slots[NAVREPLAY_SHORTHAND_ENTRIES];
    for (int entry = 0; entry < entries; entry++) {
        long length = lengths[entry];
        // Keys of at least one letter, names of at least two: the bytes hashed are the pattern's.
        if (length < 4 || length > NAVREPLAY_SHORTHAND_ROOM || (entry >= keys && length < key_length + 4)) return -1;
        memcpy(table->patterns[entry], flat, (size_t)length);
        table->lengths[entry] = (uint8_t)length;
        // A name is found by the bytes after its value's quote, which follows `"event_name":`.
        long at = entry < keys ? 0 : key_length;
        slots[entry] = navreplay_shorthand_slot(flat + at);
        flat += length;
    }
    // Candidates grouped by slot, keys' slots first (a counting sort).
    int next = 0;
    for (int kind = 0; kind < 2; kind++) {
        uint16_t *start = kind == 0 ? table->key_start : table->name_start;
        uint8_t *count = kind == 0 ? table->key_count : table->name_count;
        for (unsigned slot = 0; slot < NAVREPLAY_SHORTHAND_SLOTS; slot++) {
            start[slot] = (uint16_t)next;
            for (int entry = kind == 0 ? 0 : keys; entry < (kind == 0 ? keys : entries); entry++) {
                if (slots[entry] != slot) continue;
                table->candidates[next++] = (uint8_t)entry;
                count[slot]++;
            }
        }
    }
    table->entries = entries;
    table->keys = keys;
    table->event_name_key = event_name_key;
    return 0;
}

/// Bit i set where `bytes[i] == byte`, for 64 bytes: the portable form, a word at a time
/// (exact: no borrow runs from one byte into the next).
static inline uint64_t navreplay_mask64_portable(const uint8_t *bytes, uint8_t byte) {
    const uint64_t low7 = 0x7F7F7F7F7F7F7F7FULL;
    const uint64_t pattern = 0x0101010101010101ULL * byte;
    uint64_t mask = 0;
    for (int word = 0; word < 8; word++) {
        uint64_t value;
        memcpy(&value, bytes + word * 8, 8);
        value ^= pattern;
        // The high bit of each byte that is zero.
        uint64_t zero = ~(((value & low7) + low7) | value | low7);
        // Gathers the eight high bits into one byte.
        mask |= (((zero >> 7) * 0x0102040810204080ULL) >> 56) << (word * 8);
    }
    return mask;
}

#if defined(__SSE2__)
static inline uint64_t navreplay_movemask64(__m128i first, __m128i second, __m128i third, __m128i fourth) {
    return (uint64_t)(uint16_t)_mm_movemask_epi8(first) | (uint64_t)(uint16_t)_mm_movemask_epi8(second) << 16
        | (uint64_t)(uint16_t)_mm_movemask_epi8(third) << 32 | (uint64_t)(uint16_t)_mm_movemask_epi8(fourth) << 48;
}
#endif

static inline uint64_t navreplay_mask64(const uint8_t *bytes, uint8_t byte) {
#if defined(__SSE2__)
    const __m128i pattern = _mm_set1_epi8((char)byte);
    return navreplay_movemask64(
        _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)bytes), pattern),
        _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(bytes + 16)), pattern),
        _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(bytes + 32)), pattern),
        _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(bytes + 48)), pattern));
#else
    return navreplay_mask64_portable(bytes, byte);
#endif
}

/// What `navreplay_shorten` looks for in 64 bytes: the quotes, the `{`, `,` and spaces that may
/// come before a key's quote, and whether there is a marker. One load of each 16 bytes for all.
typedef struct {
    uint64_t quotes, openers, markers;
} navreplay_key_masks;

static inline navreplay_key_masks navreplay_key_masks64(const uint8_t *bytes) {
    navreplay_key_masks masks;
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"'), comma = _mm_set1_epi8(','), brace = _mm_set1_epi8('{'), space = _mm_set1_epi8(' ');
    const __m128i marker = _mm_set1_epi8(NAVREPLAY_SHORTHAND_MARKER);
    __m128i parts[4];
    for (int part = 0; part < 4; part++) parts[part] = _mm_loadu_si128((const __m128i *)(bytes + part * 16));
#define NAVREPLAY_EACH(expression) navreplay_movemask64( \
        expression(parts[0]), expression(parts[1]), expression(parts[2]), expression(parts[3]))
#define NAVREPLAY_QUOTE(part) _mm_cmpeq_epi8(part, quote)
#define NAVREPLAY_OPENER(part) \
    _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(part, comma), _mm_cmpeq_epi8(part, brace)), _mm_cmpeq_epi8(part, space))
    masks.quotes = NAVREPLAY_EACH(NAVREPLAY_QUOTE);
    masks.openers = NAVREPLAY_EACH(NAVREPLAY_OPENER);
    __m128i markers = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(parts[0], marker), _mm_cmpeq_epi8(parts[1], marker)),
        _mm_or_si128(_mm_cmpeq_epi8(parts[2], marker), _mm_cmpeq_epi8(parts[3], marker)));
    masks.markers = (uint64_t)_mm_movemask_epi8(markers);
#undef NAVREPLAY_EACH
#undef NAVREPLAY_QUOTE
#undef NAVREPLAY_OPENER
#else
    masks.quotes = navreplay_mask64_portable(bytes, '"');
    masks.openers = navreplay_mask64_portable(bytes, ',') | navreplay_mask64_portable(bytes, '{') | navreplay_mask64_portable(bytes, ' ');
    masks.markers = navreplay_mask64_portable(bytes, NAVREPLAY_SHORTHAND_MARKER);
#endif
    return masks;
}

/// The 64 bytes at `bytes`, of which `count` are readable: past them, zeros (which match
/// neither a quote nor the marker).
static inline const uint8_t *navreplay_block64(const uint8_t *bytes, long count, uint8_t *spare) {
    if (count >= 64) return bytes;
    memset(spare, 0, 64);
    memcpy(spare, bytes, (size_t)count);
    return spare;
}

/// Copies `count` bytes, touching no byte before or past either range: a line's shorthand is
/// written next to other lines' that other threads write.
static inline void navreplay_copy_exact(uint8_t *to, const uint8_t *from, long count) {
    while (count >= 16) {
        memcpy(to, from, 16);
        to += 16, from += 16, count -= 16;
    }
    if (count >= 8) {
        memcpy(to, from, 8);
        memcpy(to + count - 8, from + count - 8, 8);
    } else if (count >= 4) {
        memcpy(to, from, 4);
        memcpy(to + count - 4, from + count - 4, 4);
    } else {
        for (long index = 0; index < count; index++) to[index] = from[index];
    }
}

/// Eight characters (in a word, the first in the low byte) that are all lowercase hexadecimal
/// digits (or, without `letters`, decimal ones) as four bytes, the first digit the high nibble
/// of the first byte; -1 when one is not. A word at a time, with no carry between bytes.
static inline int64_t navreplay_pack8(uint64_t chars, int letters) {
    const uint64_t ones = 0x0101010101010101ULL;
    uint64_t letter = (chars >> 6) & ones;                    // 'a'..'f' are 0x61..0x66
    uint64_t nibbles = (chars & (ones * 0x0F)) + letter * 9;  // each at most 0x18
    uint64_t above9 = ((nibbles + ones * 0x76) >> 7) & ones;
    // A digit is the character its nibble spells; anything else is not, or its nibble is past 15.
    uint64_t spelled = nibbles + ones * 0x30 + above9 * 0x27;
    uint64_t invalid = (spelled ^ chars) | ((nibbles + ones * 0x70) & (ones * 0x80)) | (letters ? 0 : above9);
    if (invalid != 0) return -1;
    uint64_t pairs = ((nibbles << 4) | (nibbles >> 8)) & 0x00FF00FF00FF00FFULL;
    pairs = (pairs | (pairs >> 8)) & 0x0000FFFF0000FFFFULL;
    return (int64_t)((pairs | (pairs >> 16)) & 0xFFFFFFFFULL);
}

/// The eight lowercase hexadecimal characters of four bytes packed by `navreplay_pack8`.
static inline uint64_t navreplay_unpack8(uint32_t packed) {
    const uint64_t ones = 0x0101010101010101ULL;
    uint64_t spread = packed;
    spread = (spread | (spread << 16)) & 0x0000FFFF0000FFFFULL;
    spread = (spread | (spread << 8)) & 0x00FF00FF00FF00FFULL;
    uint64_t nibbles = ((spread >> 4) & 0x000F000F000F000FULL) | ((spread & 0x000F000F000F000FULL) << 8);
    return nibbles + ones * 0x30 + (((nibbles + ones * 0x76) >> 7) & ones) * 0x27;
}

static inline uint64_t navreplay_load_word(const uint8_t *bytes, int count) {
    uint64_t word = 0;
    memcpy(&word, bytes, (size_t)count);
    return word;
}

/// A packed value's two forms: its text (with its quotes) and its shorthand (the marker, the
/// code and the packed bytes); both 0 when there is none.
typedef struct {
    long text, shorthand;
} navreplay_packed;

/// Packs the value at `value` (`room` bytes readable) when it is a UUID or a timestamp of the
/// forms above: writes its shorthand to `out` (18 or 11 bytes, no more) and returns both sizes.
static inline navreplay_packed navreplay_pack_value(const uint8_t *value, long room, uint8_t *out) {
    navreplay_packed none = {0, 0};
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (room < 26 || value[0] != '"') return none;
    if (room >= 38 && value[37] == '"' && value[9] == '-' && value[14] == '-' && value[19] == '-' && value[24] == '-') {
        int64_t words[4] = {
            navreplay_pack8(navreplay_load_word(value + 1, 8), 1),
            navreplay_pack8(navreplay_load_word(value + 10, 4) | navreplay_load_word(value + 15, 4) << 32, 1),
            navreplay_pack8(navreplay_load_word(value + 20, 4) | navreplay_load_word(value + 25, 4) << 32, 1),
            navreplay_pack8(navreplay_load_word(value + 29, 8), 1),
        };
        if ((words[0] | words[1] | words[2] | words[3]) < 0) return none;
        out[0] = NAVREPLAY_SHORTHAND_MARKER, out[1] = NAVREPLAY_SHORTHAND_UUID;
        for (int word = 0; word < 4; word++) {
            uint32_t packed = (uint32_t)words[word];
            memcpy(out + 2 + word * 4, &packed, 4);
        }
        navreplay_packed uuid = {38, 18};
        return uuid;
    }
    if (value[25] == '"' && value[24] == 'Z' && value[5] == '-' && value[8] == '-' && value[11] == 'T' && value[14] == ':'
        && value[17] == ':' && value[20] == '.' && value[23] >= '0' && value[23] <= '9') {
        int64_t date = navreplay_pack8(
            navreplay_load_word(value + 1, 4) | navreplay_load_word(value + 6, 2) << 32 | navreplay_load_word(value + 9, 2) << 48, 0);
        int64_t time = navreplay_pack8(
            navreplay_load_word(value + 12, 2) | navreplay_load_word(value + 15, 2) << 16 | navreplay_load_word(value + 18, 2) << 32
                | navreplay_load_word(value + 21, 2) << 48,
            0);
        if ((date | time) < 0) return none;
        uint32_t packed[2] = {(uint32_t)date, (uint32_t)time};
        out[0] = NAVREPLAY_SHORTHAND_MARKER, out[1] = NAVREPLAY_SHORTHAND_TIME;
        memcpy(out + 2, packed, 8);
        out[10] = (uint8_t)(value[23] - '0');
        navreplay_packed timestamp = {26, 11};
        return timestamp;
    }
#else
    (void)value, (void)room, (void)out;
#endif
    return none;
}

/// Writes the text of the packed value whose shorthand is at `short_value` (`left` bytes
/// readable: the marker, its code, the packed bytes) and returns both sizes; a text of -1 when
/// it is not one (an unknown code, cut short, or a timestamp's last digit that is not one).
static inline navreplay_packed navreplay_unpack_value(const uint8_t *short_value, long left, uint8_t *out) {
    navreplay_packed invalid = {-1, 0};
    if (left < 2) return invalid;
    int code = short_value[1];
    const uint8_t *packed = short_value + 2;
    if (code == NAVREPLAY_SHORTHAND_UUID) {
        if (left < 18) return invalid;
        uint32_t words[4];
        memcpy(words, packed, 16);
        uint64_t chars[4] = {navreplay_unpack8(words[0]), navreplay_unpack8(words[1]), navreplay_unpack8(words[2]), navreplay_unpack8(words[3])};
        out[0] = '"';
        memcpy(out + 1, &chars[0], 8);
        out[9] = '-';
        memcpy(out + 10, &chars[1], 4);
        out[14] = '-';
        memcpy(out + 15, (const uint8_t *)&chars[1] + 4, 4);
        out[19] = '-';
        memcpy(out + 20, &chars[2], 4);
        out[24] = '-';
        memcpy(out + 25, (const uint8_t *)&chars[2] + 4, 4);
        memcpy(out + 29, &chars[3], 8);
        out[37] = '"';
        navreplay_packed uuid = {38, 18};
        return uuid;
    }
    if (code != NAVREPLAY_SHORTHAND_TIME || left < 11 || packed[8] > 9) return invalid;
    uint32_t words[2];
    memcpy(words, packed, 8);
    uint64_t date = navreplay_unpack8(words[0]), time = navreplay_unpack8(words[1]);
    const uint8_t *d = (const uint8_t *)&date, *t = (const uint8_t *)&time;
    uint8_t text[26] = {
        '"', d[0], d[1], d[2], d[3], '-', d[4], d[5], '-', d[6], d[7], 'T', t[0], t[1], ':', t[2], t[3], ':', t[4], t[5], '.', t[6], t[7],
        (uint8_t)('0' + packed[8]), 'Z', '"'};
    memcpy(out, text, 26);
    navreplay_packed timestamp = {26, 11};
    return timestamp;
}

/// Whether entry's pattern is at `text`, which has `room` bytes.
static inline int navreplay_shorthand_is(const navreplay_shorthand_table *table, int entry, const uint8_t *text, long room) {
    long length = table->lengths[entry];
    if (length > room) return 0;
    const uint8_t *pattern = table->patterns[entry];
    if (length < 8) {
        // Two words of four that overlap (patterns are at least four bytes).
        uint32_t first, second, third, fourth;
        memcpy(&first, text, 4), memcpy(&second, pattern, 4);
        memcpy(&third, text + length - 4, 4), memcpy(&fourth, pattern + length - 4, 4);
        return ((first ^ second) | (third ^ fourth)) == 0;
    }
    uint64_t difference = 0, a, b;
    for (long at = 0; at + 8 <= length; at += 8) {
        memcpy(&a, text + at, 8), memcpy(&b, pattern + at, 8);
        difference |= a ^ b;
    }
    memcpy(&a, text + length - 8, 8), memcpy(&b, pattern + length - 8, 8);
    return (difference | (a ^ b)) == 0;
}

static inline int navreplay_shorthand_find(
    const navreplay_shorthand_table *table, const uint16_t *starts, const uint8_t *counts, unsigned slot,
    const uint8_t *text, long room
) {
    const uint8_t *candidate = table->candidates + starts[slot];
    for (int index = 0; index < counts[slot]; index++) {
        if (navreplay_shorthand_is(table, candidate[index], text, room)) return candidate[index];
    }
    return -1;
}

/// Writes the shorthand of the `count` bytes at `line` to `out` (room for `count` bytes, and
/// nothing past them is touched) and returns its length; -1 when the line holds the marker.
///
/// Every `"key":` of the table that follows a `{`, a `,` or a space (`{"a": 1, "b": 2}`, as
/// Python's `json.dumps` writes) becomes the marker and its entry, and `"event_name":"<name>"`
/// whole when the name is in the table; the key's value, when it is a UUID or a timestamp of
/// the packed forms, becomes the marker, its code and the packed bytes. Only those quotes are
/// looked at (about one in three of a line's quotes), whether in a string or not: which
/// occurrences are replaced only changes how short the line gets, as each one replaced is
/// exactly its pattern's bytes.
static inline long navreplay_shorten(const navreplay_shorthand_table *table, const uint8_t *line, long count, uint8_t *out) {
    uint8_t spare[64];
    long copied = 0;   // line[..<copied] is out[..<written]
    long written = 0;
    uint64_t carry = 0;  // whether the last byte of the previous block is `{`, `,` or a space
    for (long block = 0; block < count; block += 64) {
        const uint8_t *bytes = navreplay_block64(line + block, count - block, spare);
        navreplay_key_masks masks = navreplay_key_masks64(bytes);
        if (masks.markers != 0) return -1;
        uint64_t starts = masks.quotes & ((masks.openers << 1) | carry);
        carry = masks.openers >> 63;
        for (; starts != 0; starts &= starts - 1) {
            long start = block + __builtin_ctzll(starts);
            if (start < copied || start + 4 > count) continue;
            unsigned slot = navreplay_shorthand_slot(line + start);
            int entry = navreplay_shorthand_find(table, table->key_start, table->key_count, slot, line + start, count - start);
            if (entry < 0) continue;
            long end = start + table->lengths[entry];
            long value = end;
            if (entry == table->event_name_key && value + 4 <= count && line[value] == '"') {
                // With its value when that is a known name.
                unsigned name_slot = navreplay_shorthand_slot(line + value);
                int name = navreplay_shorthand_find(table, table->name_start, table->name_count, name_slot, line + start, count - start);
                if (name >= 0) entry = name, end = start + table->lengths[name];
            }
            navreplay_copy_exact(out + written, line + copied, start - copied);
            written += start - copied;
            out[written++] = NAVREPLAY_SHORTHAND_MARKER;
            out[written++] = (uint8_t)entry;
            copied = end;
            if (entry < table->keys) {
                navreplay_packed packed = navreplay_pack_value(line + end, count - end, out + written);
                written += packed.shorthand, copied += packed.text;
            }
        }
    }
    navreplay_copy_exact(out + written, line + copied, count - copied);
    return written + count - copied;
}

/// Writes the line that the `count` bytes of shorthand at `short_line` stand for to `out`
/// (room for `count / 2 * ROOM + count + ROOM` bytes: patterns are stored as whole rooms) and
/// returns its length; -1 when it is not shorthand (a marker with no known entry after it, or
/// a packed value that is not one).
static inline long navreplay_expand(const navreplay_shorthand_table *table, const uint8_t *short_line, long count, uint8_t *out) {
    uint8_t spare[64];
    long copied = 0;
    long written = 0;
    for (long block = 0; block < count; block += 64) {
        const uint8_t *bytes = navreplay_block64(short_line + block, count - block, spare);
        for (uint64_t markers = navreplay_mask64(bytes, NAVREPLAY_SHORTHAND_MARKER); markers != 0; markers &= markers - 1) {
            long marker = block + __builtin_ctzll(markers);
            if (marker < copied) continue;  // an entry byte or a packed byte that is 1
            if (marker + 1 >= count) return -1;
            navreplay_copy_exact(out + written, short_line + copied, marker - copied);
            written += marker - copied;
            int entry = short_line[marker + 1];
            if (entry < table->entries) {
                memcpy(out + written, table->patterns[entry], NAVREPLAY_SHORTHAND_ROOM);
                written += table->lengths[entry];
                copied = marker + 2;
            } else {
                navreplay_packed packed = navreplay_unpack_value(short_line + marker, count - marker, out + written);
                if (packed.text < 0) return -1;
                written += packed.text;
                copied = marker + packed.shorthand;
            }
        }
    }
    navreplay_copy_exact(out + written, short_line + copied, count - copied);
    return written + count - copied;
}

#endif
