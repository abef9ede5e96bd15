// Apple's sample store classes say `class Store: ObservableObject` with `@Published` properties and import
// only StoreKit (which brings Combine's names on Apple's platforms). Linux has no Combine: these are its
// names and shapes, enough for a store class to compile unchanged and for a test to watch it change.
#if !canImport(Combine)
import Foundation

/// Combine's `ObservableObject`: an object that announces changes before they happen.
public protocol ObservableObject: AnyObject {
    associatedtype ObjectWillChangePublisher = ObservableObjectPublisher
    var objectWillChange: ObjectWillChangePublisher { get }
}

extension ObservableObject where ObjectWillChangePublisher == ObservableObjectPublisher {
    /// One publisher per object, kept in its `@Published` properties' storage (as Combine keeps it);
    /// an object with none gets a new one each time, as in Combine.
    public var objectWillChange: ObservableObjectPublisher {
        var fields: [any PublishedField] = []
        var mirror: Mirror? = Mirror(reflecting: self)
        while let current = mirror {
            fields += current.children.compactMap { $0.value as? any PublishedField }
            mirror = current.superclassMirror
        }
        let publisher = fields.lazy.compactMap(\.slot.publisher).first ?? ObservableObjectPublisher()
        for field in fields { field.slot.publisher = publisher }
        return publisher
    }
}

/// Combine's `Cancellable` token: cancels its subscription when cancelled or released.
public final class AnyCancellable: Hashable {
    private var onCancel: (() -> Void)?

    public init(_ cancel: @escaping () -> Void) { onCancel = cancel }
    deinit { onCancel?() }

    public func cancel() {
        onCancel?()
        onCancel = nil
    }

    public func store(in set: inout Set<AnyCancellable>) { set.insert(self) }
    public static func == (a: AnyCancellable, b: AnyCancellable) -> Bool { a === b }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// Combine's `ObservableObjectPublisher`: tells subscribers an object is about to change.
// @unchecked: every access to `subscribers` holds `lock`; the closures run on the sender's thread, as
// Combine runs them.
public final class ObservableObjectPublisher: @unchecked Sendable {
    private let lock = NSLock()
    private var subscribers: [UUID: () -> Void] = [:]

    public init() {}

    public func send() {
        for subscriber in lock.withLock({ Array(subscribers.values) }) { subscriber() }
    }

    public func sink(receiveValue: @escaping () -> Void) -> AnyCancellable {
        let id = UUID()
        lock.withLock { subscribers[id] = receiveValue }
        return AnyCancellable { [weak self] in self?.unsubscribe(id) }
    }

    private func unsubscribe(_ id: UUID) { _ = lock.withLock { subscribers.removeValue(forKey: id) } }
}

/// Where a `@Published` property keeps its value and its object's publisher.
final class PublishedSlot<Value> {
    var value: Value
    var publisher: ObservableObjectPublisher?
    var subscribers: [UUID: (Value) -> Void] = [:]
    init(_ value: Value) { self.value = value }
}

protocol PublishedField {
    var slot: any AnyPublishedSlot { get }
}

protocol AnyPublishedSlot: AnyObject {
    var publisher: ObservableObjectPublisher? { get set }
}

extension PublishedSlot: AnyPublishedSlot {}

/// Combine's `@Published`: a class's property that announces changes through its object's `objectWillChange`.
@propertyWrapper
public struct Published<Value>: PublishedField {
    let storage: PublishedSlot<Value>
    var slot: any AnyPublishedSlot { storage }

    public init(wrappedValue: Value) { storage = PublishedSlot(wrappedValue) }
    public init(initialValue: Value) { self.init(wrappedValue: initialValue) }

    @available(*, unavailable, message: "@Published is only available on properties of classes")
    public var wrappedValue: Value {
        get { fatalError() }
        set { fatalError() }  // swiftlint:disable:this unused_setter_value
    }

    public static subscript<EnclosingSelf: ObservableObject>(
        _enclosingInstance object: EnclosingSelf, wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Published<Value>>
    ) -> Value {
        get { object[keyPath: storageKeyPath].storage.value }
        set {
            let storage = object[keyPath: storageKeyPath].storage
            (object.objectWillChange as? ObservableObjectPublisher)?.send()
            storage.value = newValue
            for subscriber in storage.subscribers.values { subscriber(newValue) }
        }
    }

    /// `$property`: the property's values, the current one first.
    public var projectedValue: Publisher { Publisher(storage: storage) }

    public struct Publisher {
        let storage: PublishedSlot<Value>

        public func sink(receiveValue: @escaping (Value) -> Void) -> AnyCancellable {
            let id = UUID()
            storage.subscribers[id] = receiveValue
            receiveValue(storage.value)
            return AnyCancellable { [storage] in storage.subscribers[id] = nil }
        }
    }
}
#endif
