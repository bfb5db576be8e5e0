/// Where an answer about a place came from: the data built into the gazetteer file, an
/// online service, or both agreeing. Written as its raw value in the JSON documents
/// (`offline`, `online`, `offline+online`).
public enum AnswerSource: String, Sendable, Hashable, Codable, CaseIterable {
    /// The gazetteer file (GeoNames, built in).
    case offline
    /// An online service (Open-Meteo geocoding, Zippopotam.us).
    case online
    /// Both: an online answer that agrees with an offline one (same name, within 5 km).
    case both = "offline+online"
}
