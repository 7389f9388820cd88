/**
 * aws-local-stepfunctions 3.0.0 is built for Node 22 and calls `Promise.withResolvers` (ES2024)
 * for every Task state; Node 20, which this project must also run on, lacks it. Installed only
 * when missing, so a runtime that has the native one keeps it.
 */
interface Resolvers<T> {
  promise: Promise<T>;
  resolve: (value: T | PromiseLike<T>) => void;
  reject: (reason?: unknown) => void;
}

// A cast, not a global declaration: the project's lib is ES2023, and a global augmentation would
// clash with the real declaration once the lib moves to ES2024.
const promiseCtor = Promise as unknown as { withResolvers?: <T>() => Resolvers<T> };

if (typeof promiseCtor.withResolvers !== 'function') {
  Object.defineProperty(Promise, 'withResolvers', {
    configurable: true,
    writable: true,
    enumerable: false,
    value: function withResolvers<T>(this: PromiseConstructor): Resolvers<T> {
      let resolve!: Resolvers<T>['resolve'];
      let reject!: Resolvers<T>['reject'];
      const promise = new this<T>((ok, fail) => {
        resolve = ok;
        reject = fail;
      });
      return { promise, resolve, reject };
    },
  });
}

export {};
