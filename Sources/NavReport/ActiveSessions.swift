/// How many sessions had an event in each UTC hour and each UTC day: what the findings over time
/// are divided by, so that a rollout (more sessions) does not look like a trend. A session counts
/// in every hour and day from its first event's to its last event's. Memory is one counter per
/// hour and per day.
struct ActiveSessions {
    static let day = 24 * FindingsByHour.hour
    var hours: [Int64: Int] = [:]
    var days: [Int64: Int] = [:]
    /// A session spanning more than the chart's days (a broken clock): the chart is not drawn.
    var overflowed = false

    mutating func add(start: Int64, end: Int64) {
        guard !overflowed else { return }
        let first = min(start, end)
        let last = max(start, end)
        guard (last - first) / Self.day < Int64(FindingsByHour.maximumDays) else {
            overflow()
            return
        }
        var hour = FindingsByHour.floor(first, to: FindingsByHour.hour)
        while hour <= last {
            hours[hour, default: 0] += 1
            hour += FindingsByHour.hour
        }
        var day = FindingsByHour.floor(first, to: Self.day)
        while day <= last {
            days[day, default: 0] += 1
            day += Self.day
        }
        if hours.count > FindingsByHour.maximumDays * 24 { overflow() }
    }

    mutating func merge(_ other: ActiveSessions) {
        if other.overflowed { overflow() }
        guard !overflowed else { return }
        hours.merge(other.hours, uniquingKeysWith: +)
        days.merge(other.days, uniquingKeysWith: +)
        if hours.count > FindingsByHour.maximumDays * 24 { overflow() }
    }

    /// The sessions active in the bucket of `size` (an hour or a day) that starts at `start`.
    func count(at start: Int64, size: Int64) -> Int {
        (size == FindingsByHour.hour ? hours[start] : days[start]) ?? 0
    }

    private mutating func overflow() {
        overflowed = true
        hours = [:]
        days = [:]
    }
}
