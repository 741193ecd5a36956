// Typings of modex_adapter.js, the Modex adapter kit for JavaScript and
// TypeScript (protocol modex-adapter/1, see docs/adapter-protocol.md).
// Standalone: no @types/node needed (bytes are typed Uint8Array; at run time
// they are Node Buffers, which are Uint8Arrays).

/** The protocol's name and version. */
export declare const PROTOCOL: "modex-adapter/1";

/**
 * A value as a handler receives it (decoded from the protocol):
 * `{"set":[...]}` is a Set, `{"dict":[[k,v],...]}` a Map, `{"bytes":"..."}` a
 * Uint8Array (a Buffer: the UTF-8 of the string), arrays are arrays and other
 * JSON objects plain objects.
 */
export type Value =
  | null
  | boolean
  | number
  | string
  | Uint8Array
  | Value[]
  | Set<Value>
  | Map<Value, Value>
  | { [key: string]: Value };

/**
 * A value a handler may return or an event may carry: a Value, or undefined
 * (sent as null), a bigint that is a safe integer, an ArrayBuffer or a typed
 * array (bytes), an object with a toJSON method, or another object (sent as its
 * own enumerable properties, as JSON.stringify would). Sets are sent sorted:
 * numbers, strings or booleans by value, other items by their JSON text.
 */
export type Encodable =
  | null
  | undefined
  | void
  | boolean
  | number
  | bigint
  | string
  | ArrayBuffer
  | ArrayBufferView
  | readonly Encodable[]
  | ReadonlySet<Encodable>
  | ReadonlyMap<Encodable, Encodable>
  | { toJSON(): Encodable }
  | { readonly [key: string]: Encodable }
  | object; // other objects: their own enumerable properties (a function: TypeError)

/** A value as it travels in the protocol (JSON). */
export type Wire = null | boolean | number | string | Wire[] | { [key: string]: Wire };

/**
 * An action's handler: called with the decoded args, one request at a time;
 * returns the action's output (undefined for none), or a Promise of it.
 * Throw Refused when the implementation does not accept the action now,
 * NotImplemented when it does not have it; anything else thrown is an error
 * (a crash of the implementation for Modex).
 */
export type Handler<A extends any[] = any[]> = (...args: A) => Encodable | PromiseLike<Encodable>;

/** A reset or close hook; a returned Promise is awaited. */
export type Hook = () => unknown;

/** Options of Adapter.run. */
export interface RunOptions {
  /**
   * "HOST:PORT": accept one TCP connection there and speak the protocol on it
   * instead of stdin/stdout (":0" picks a free port; "listening on HOST:PORT"
   * goes to stderr). Without it, the program's --listen HOST:PORT argument.
   */
  listen?: string;
}

/** Thrown by a handler when the implementation does not accept the action now. */
export declare class Refused extends Error {
  constructor(reason?: string);
  readonly reason: string;
}

/** Thrown by a handler whose action the implementation does not have (yet). */
export declare class NotImplemented extends Error {
  constructor(reason?: string);
  readonly reason: string;
}

/**
 * One adapter. Creating it points console.log/info/debug and
 * process.stdout.write at stderr: stdout carries the protocol only.
 */
export declare class Adapter {
  constructor(name: string);

  /** The name the adapter gives in its hello answer. */
  readonly name: string;

  /** Registers the handler of an action; throws if it has one already. */
  action<A extends any[]>(name: string, handler: Handler<A>): this;

  /**
   * Registers the reset hook, called (and awaited) before every test run: it
   * must bring the implementation back to its initial state and stop
   * whatever the previous run started before it returns.
   */
  onReset(fn: Hook): this;

  /** Registers the close hook, awaited once when the adapter stops. */
  onClose(fn: Hook): this;

  /**
   * Sends the event action(...args) to Modex at once (from any callback or
   * timer); dropped while no connection is open. Throws a TypeError for an
   * argument that cannot be sent.
   */
  emit(action: string, ...args: Encodable[]): void;

  /**
   * Speaks the protocol until shutdown, end of input, SIGTERM or SIGINT, then
   * awaits the close hook and exits the process (status 0; 1 when the hook
   * threw). The Promise never resolves.
   */
  run(options?: RunOptions): Promise<never>;
}

/** Converts a native value to its protocol value (TypeError if it cannot). */
export declare function encode(value: Encodable): Wire;

/** Converts a protocol value to the native value a handler receives. */
export declare function decode(wire: Wire): Value;
