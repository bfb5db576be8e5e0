import Platform

/// A broker connection as the publisher, the uploads and the collector use it: the seam
/// that lets their logic run in-process in tests (an in-process client answers as a
/// broker would) and on libmosquitto in the program (``MQTT/client(_:name:)``).
///
/// Contract:
/// - It is a ``Service``: ``Service/run(_:)`` connects, reconnects after a back-off (1 s
///   doubling to 30 s) whenever the connection fails or drops, and on the stop request
///   publishes the options' farewell, waits for its acknowledgement (2 s at most) and
///   disconnects cleanly, so that the broker drops the will. Refused credentials are not
///   retried (``MQTTProblem/isPermanent``): the client idles until stopped.
/// - Everything that happens comes through ``events``, in order, for one consumer; nothing
///   is to be polled.
/// - ``publish(_:_:retain:)`` queues a QoS 1 message and returns its id; its
///   ``MQTTEvent/acknowledged(_:)`` says the broker has it. A message published while
///   the connection is down may be lost with it: the caller keeps the truth (the
///   logbook) and publishes again after the next ``MQTTEvent/connected(generation:)``.
/// - ``pause()`` leaves the broker (which queues for a persistent session) until
///   ``resume()``: the collector does so while its database is down.
public protocol MQTTClient: Service, AnyObject {
    var options: MQTTOptions { get }
    var events: AsyncStream<MQTTEvent> { get }
    func publish(_ topic: String, _ payload: String, retain: Bool) throws(MQTTError) -> MQTTMessageID
    func subscribe(_ topic: String) throws(MQTTError)
    func pause()
    func resume()
}

extension MQTTClient {
    /// A plain (not retained) QoS 1 message.
    public func publish(_ topic: String, _ payload: String) throws(MQTTError) -> MQTTMessageID {
        try publish(topic, payload, retain: false)
    }
}

/// Making a client of the real broker.
public enum MQTT {
    /// A libmosquitto client with these options, named `name` in its group; nothing is
    /// sent until it runs. Throws when libmosquitto is missing or refuses an option (an
    /// unreadable CA file), with its reason.
    public static func client(_ options: MQTTOptions, name: ServiceName = .mqtt) throws(MQTTError) -> any MQTTClient {
        try MQTTConnection(options: options, name: name)
    }
}
