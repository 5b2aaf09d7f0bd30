/** Backup and restore of a whole site: the event store with its read models, and the media files it refers to. */

export { BackupError, backupSite, readBackupManifest, restoreSite } from './siteBackup.js';
