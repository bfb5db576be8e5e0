/// A set of fields two documents share (`ParticulateJSON`, an upload's status): a
/// property of this type is written as its fields, at the level of the document that holds
/// it, not as an object. Declared here, below every module that writes a document, so that
/// storage's documents (`LogStatusJSON`) and the pipeline's share the one convention;
/// module Airloc's `NullPreserving` writes it so, and a type that conforms also writes
/// itself so with a plain `JSONEncoder` when its holder encodes it into its own container.
public protocol JSONInline: Encodable {}
