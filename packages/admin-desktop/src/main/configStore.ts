/**
 * Small persistent stores of the main process: the remembered server URL (a JSON file in
 * Electron's userData) and the refresh-token secret. The secret store is an interface because only
 * Electron has `safeStorage` (main.ts); the dev bridge keeps it in memory.
 */
import fs from 'node:fs';
import path from 'node:path';

export interface DesktopConfig {
  serverUrl?: string;
}

export interface ConfigStore {
  read(): DesktopConfig;
  write(patch: DesktopConfig): void;
}

export function fileConfigStore(dir: string, name = 'config.json'): ConfigStore {
  const file = path.join(dir, name);
  return {
    read() {
      try {
        const raw = JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
        if (raw && typeof raw === 'object' && typeof (raw as DesktopConfig).serverUrl === 'string')
          return { serverUrl: (raw as DesktopConfig).serverUrl };
      } catch {
        // missing or unreadable: start empty
      }
      return {};
    },
    write(patch) {
      fs.mkdirSync(dir, { recursive: true });
      const next = { ...this.read(), ...patch };
      fs.writeFileSync(file, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
    },
  };
}

/** Where the refresh token lives between runs. */
export interface SecretStore {
  get(): string | undefined;
  set(value: string | undefined): void;
}

export function memorySecretStore(): SecretStore {
  let value: string | undefined;
  return {
    get: () => value,
    set: (v) => {
      value = v;
    },
  };
}

/** What Electron's safeStorage offers (injected so this file has no Electron import). */
export interface Encryptor {
  isEncryptionAvailable(): boolean;
  encryptString(plain: string): Buffer;
  decryptString(encrypted: Buffer): string;
  /** Linux only: the secret store in use (`basic_text` when there is none). */
  getSelectedStorageBackend?(): string;
}

/**
 * Whether the OS protects what `enc` encrypts. Without a secret store, Linux's safeStorage still
 * says it can encrypt, with `basic_text`: a key written in Electron's source, which protects nothing.
 */
const osEncrypts = (enc: Encryptor) => enc.isEncryptionAvailable() && enc.getSelectedStorageBackend?.() !== 'basic_text';

/**
 * The secret encrypted by the OS keychain (safeStorage) in a file. When the OS offers no
 * encryption (or only Linux's `basic_text`) the secret is kept in memory only: never written in
 * plain text, and the file an earlier run wrote is removed, so a session signed out of (or
 * replaced) now is not resumed from it when the keychain is back.
 */
export function encryptedSecretStore(file: string, enc: Encryptor): SecretStore {
  const memory = memorySecretStore();
  return {
    get() {
      if (!osEncrypts(enc)) return memory.get();
      try {
        return enc.decryptString(fs.readFileSync(file));
      } catch {
        return undefined;
      }
    },
    set(value) {
      if (value === undefined || !osEncrypts(enc)) {
        fs.rmSync(file, { force: true });
        return memory.set(value);
      }
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, enc.encryptString(value), { mode: 0o600 });
    },
  };
}
