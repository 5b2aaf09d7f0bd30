/**
 * The desktop console's refresh-token store (`encryptedSecretStore`): the file it writes never holds
 * the secret in plain text, and with no OS encryption it writes nothing at all. Electron's
 * `safeStorage` is the OS keychain and needs the Electron binary; the unit under test is our store,
 * so a stand-in with the same interface (isEncryptionAvailable, encryptString, decryptString) and a
 * real cipher (AES-256-GCM under a key of its own, as a keychain holds one per user) takes its place.
 * Linux without a secret store (`basic_text`) counts as no encryption, and a locked keychain leaves
 * no earlier session on disk.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type Encryptor, encryptedSecretStore } from './configStore.js';

/**
 * A keychain stand-in: AES-256-GCM under its own random key; `available` switches the OS's encryption
 * on and off; `backend` is what Linux's safeStorage names as its secret store.
 */
function keychain(available = true, backend?: string) {
  const key = randomBytes(32);
  const state = { available, encryptions: 0 };
  const enc: Encryptor = {
    isEncryptionAvailable: () => state.available,
    ...(backend && { getSelectedStorageBackend: () => backend }),
    encryptString(plain) {
      // Electron throws when the OS offers no encryption; the store must not get this far then.
      if (!state.available) throw new Error('Encryption is not available.');
      state.encryptions += 1;
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return Buffer.concat([iv, cipher.getAuthTag(), body]);
    },
    decryptString(encrypted) {
      if (!state.available) throw new Error('Decryption is not available.');
      const decipher = createDecipheriv('aes-256-gcm', key, encrypted.subarray(0, 12));
      decipher.setAuthTag(encrypted.subarray(12, 28));
      return Buffer.concat([decipher.update(encrypted.subarray(28)), decipher.final()]).toString('utf8');
    },
  };
  return { enc, state };
}

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});
/** Where Electron's userData would be: a fresh folder, the store's file inside a subfolder not made yet. */
function sessionFile(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'desktop-secrets-'));
  dirs.push(dir);
  return path.join(dir, 'userData', 'session.bin');
}

/** What the console stores: its cookie jar, a refresh token and the CSRF value, as JSON. */
function cookieJar() {
  const refresh = randomBytes(32).toString('base64url');
  return { refresh, secret: JSON.stringify({ refresh_token: refresh, csrf_token: randomBytes(16).toString('hex') }) };
}

/** Every way the secret could sit in a file readably: as typed, in UTF-16, base64, base64url or hex. */
function readableForms(s: string): Buffer[] {
  const utf8 = Buffer.from(s, 'utf8');
  return [utf8, Buffer.from(s, 'utf16le'), ...(['base64', 'base64url', 'hex'] as const).map((e) => Buffer.from(utf8.toString(e)))];
}

/** Stores `secret` through `chain` and checks it was kept in memory only: no file, nothing encrypted, read back. */
function keptInMemoryOnly(file: string, chain: ReturnType<typeof keychain>, secret: string) {
  const store = encryptedSecretStore(file, chain.enc);
  store.set(secret);
  expect(fs.existsSync(path.dirname(file))).toBe(false);
  expect(chain.state.encryptions).toBe(0);
  expect(store.get()).toBe(secret);
  return store;
}

describe('encryptedSecretStore', () => {
  it('writes the secret encrypted only: no readable form of the token in the file, mode 0600, read back by the same keychain only', () => {
    const file = sessionFile();
    const { enc, state } = keychain();
    const { refresh, secret } = cookieJar();
    encryptedSecretStore(file, enc).set(secret);

    const bytes = fs.readFileSync(file);
    expect(bytes.length).toBeGreaterThan(0);
    for (const needle of [...readableForms(secret), ...readableForms(refresh)]) expect(bytes.includes(needle)).toBe(false);
    expect(state.encryptions).toBe(1);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    // Positive control: those bytes are the secret, encrypted; the next run (a new store on the file) reads it back.
    expect(enc.decryptString(bytes)).toBe(secret);
    expect(encryptedSecretStore(file, enc).get()).toBe(secret);
    // Another user's keychain (another key) cannot read it: nothing, not an error.
    expect(encryptedSecretStore(file, keychain().enc).get()).toBeUndefined();
  });

  it('signing out removes the file; a damaged file reads as no session', () => {
    const file = sessionFile();
    const { enc } = keychain();
    const store = encryptedSecretStore(file, enc);
    store.set(cookieJar().secret);
    store.set(undefined);
    expect(fs.existsSync(file)).toBe(false);
    expect(store.get()).toBeUndefined();
    store.set(cookieJar().secret);
    fs.writeFileSync(file, Buffer.from('not what the keychain wrote'));
    expect(store.get()).toBeUndefined();
  });

  it('without OS encryption: nothing is written, the secret lasts this run only (in memory)', () => {
    const file = sessionFile();
    const chain = keychain(false);
    const { secret } = cookieJar();
    const store = keptInMemoryOnly(file, chain, secret);
    // The next run starts signed out.
    expect(encryptedSecretStore(file, chain.enc).get()).toBeUndefined();
    store.set(undefined);
    expect(store.get()).toBeUndefined();
  });

  it("Linux without a secret store (safeStorage's basic_text, a key in Electron's source): treated as no encryption, nothing written", () => {
    const file = sessionFile();
    const { secret } = cookieJar();
    keptInMemoryOnly(file, keychain(true, 'basic_text'), secret);
    // Positive control: with a real secret store (GNOME's libsecret) the same store writes its file.
    const libsecret = keychain(true, 'gnome_libsecret');
    encryptedSecretStore(file, libsecret.enc).set(secret);
    expect(libsecret.state.encryptions).toBe(1);
    expect(encryptedSecretStore(file, libsecret.enc).get()).toBe(secret);
  });

  it('encryption gone after an earlier run saved a session (a locked keychain): signing out, or a new secret, leaves no old session on disk', () => {
    for (const next of [undefined, cookieJar().secret]) {
      const file = sessionFile();
      const { enc, state } = keychain();
      encryptedSecretStore(file, enc).set(cookieJar().secret);
      expect(fs.existsSync(file)).toBe(true);

      state.available = false;
      const store = encryptedSecretStore(file, enc);
      store.set(next);
      expect(store.get()).toBe(next);
      // The keychain back on a later run: the session signed out of (or replaced) is not resumed from the file.
      state.available = true;
      expect(fs.existsSync(file)).toBe(false);
      expect(encryptedSecretStore(file, enc).get()).toBeUndefined();
    }
  });
});
