// Is the packed .vsix one that Open VSX accepts (issue 14: VSCodium, Cursor, Windsurf and
// code-server users install from there)? Publishing needs a token, so this runs what `ovsx
// publish` checks before it uploads (ovsx's own validateManifest and license check, on the
// manifest inside the .vsix) and the rules the Open VSX server applies to the upload (its
// ExtensionValidator: names, version, field sizes and characters, URLs, the gallery banner,
// qna), plus what an extension outside Microsoft's marketplace needs: engines.vscode, a
// repository, and no proposed API (only Insiders builds with a flag load those).
import { isLicenseOk, validateManifest } from 'ovsx';
// ovsx reads the manifest out of the .vsix with this before it publishes (not in its index).
import { readVSIXPackage } from 'ovsx/lib/zip.js';

/** Open VSX's name pattern for namespaces (publishers) and extension names. */
const NAME = /^[\w\-+$~]+$/;
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z-.]+)?(\+[0-9A-Za-z-.]+)?$/;
/** The Unicode classes the server rejects in text fields (control, format, unassigned, private use, separators). */
const BAD_CHARACTER = /[\p{Cc}\p{Cf}\p{Cn}\p{Co}\p{Zl}\p{Zp}]/u;

/** What Open VSX would reject in `manifest` (extension/package.json of the .vsix); empty when none. */
export function openVsxProblems(manifest) {
  const problems = [];
  try {
    validateManifest(manifest);
  } catch (err) {
    problems.push(err.message);
  }
  if (!manifest.license) problems.push('no license (Open VSX accepts only licensed extensions)');
  for (const [field, value] of [
    ['publisher', manifest.publisher],
    ['name', manifest.name],
  ])
    if (typeof value === 'string' && !NAME.test(value)) problems.push(`${field} ${JSON.stringify(value)} is not a valid Open VSX name`);
  if (typeof manifest.version === 'string' && (!SEMVER.test(manifest.version) || ['latest', 'pre-release'].includes(manifest.version)))
    problems.push(`version ${JSON.stringify(manifest.version)} is not a semantic version Open VSX accepts`);
  if (typeof manifest.engines?.vscode !== 'string') problems.push('no engines.vscode');
  if (manifest.enabledApiProposals?.length) problems.push(`proposed API (${manifest.enabledApiProposals.join(', ')}) does not load outside Insiders`);

  const text = (field, value, limit) => {
    if (value === undefined) return;
    for (const v of Array.isArray(value) ? value : [value]) {
      if (typeof v !== 'string') problems.push(`${field} is not text`);
      else if (v.length > limit) problems.push(`${field} is longer than ${limit} characters`);
      else if (BAD_CHARACTER.test(v)) problems.push(`${field} holds a character Open VSX rejects`);
    }
  };
  text('displayName', manifest.displayName, 255);
  text('description', manifest.description, 2048);
  text('categories', manifest.categories, 255);
  text('keywords', manifest.keywords, 255);
  text('license', manifest.license, 255);
  text('galleryBanner.color', manifest.galleryBanner?.color, 16);

  const repository = typeof manifest.repository === 'string' ? manifest.repository : manifest.repository?.url;
  if (!repository) problems.push('no repository');
  const url = (field, value) => {
    if (value === undefined) return;
    if (!isUrl(value)) problems.push(`${field} ${JSON.stringify(value)} is not a URL`);
    else if (value.length > 255) problems.push(`${field} is longer than 255 characters`);
  };
  url('repository', repository);
  url('homepage', manifest.homepage);
  url('bugs', typeof manifest.bugs === 'string' ? manifest.bugs : manifest.bugs?.url);
  if (manifest.qna !== undefined && manifest.qna !== false && !['marketplace', 'false'].includes(manifest.qna) && !isUrl(manifest.qna))
    problems.push(`qna ${JSON.stringify(manifest.qna)} is not "marketplace", false or a URL`);
  if (manifest.galleryBanner?.theme !== undefined && !['dark', 'light'].includes(manifest.galleryBanner.theme))
    problems.push(`galleryBanner.theme ${JSON.stringify(manifest.galleryBanner.theme)} is not dark or light`);
  if (manifest.markdown !== undefined && !['github', 'standard'].includes(manifest.markdown))
    problems.push(`markdown ${JSON.stringify(manifest.markdown)} is not github or standard`);
  return problems;
}

function isUrl(value) {
  try {
    const u = new URL(typeof value === 'string' ? value.replace(/^git\+/, '') : '');
    return !/^https?:$/.test(u.protocol) || u.host !== '';
  } catch {
    return false;
  }
}

/**
 * Throws with every problem Open VSX would have with the .vsix at `vsix`, whose source is `repo`.
 * Sabotage (a copy of reins.vsix without "license" in its package.json and without its
 * LICENSE.txt, checked against a folder with no LICENSE): this printed "Open VSX would reject
 * panel-sab.vsix: no license (Open VSX accepts only licensed extensions); ovsx finds no license in
 * the package or the folder".
 */
export async function checkOpenVsx(vsix, repo) {
  const manifest = await readVSIXPackage(vsix);
  const problems = openVsxProblems(manifest);
  // ovsx publish (from the source folder) asks for a license when neither the field nor a LICENSE file is there.
  if (!(await isLicenseOk(repo, manifest))) problems.push('ovsx finds no license in the package or the folder');
  if (problems.length) throw new Error(`Open VSX would reject ${vsix.split('/').pop()}: ${problems.join('; ')}`);
}
