// A transcript and what its TranscriptSender posts to the webview, wired as the panel host wires
// them (src/panel/panelHost.ts): for the unit tests of what reaches the webview.
import { TranscriptSender } from '../../src/panel/transcriptSender';
import { Transcript } from '../../src/runtime/transcript';
import type { HostToWebview, PanelStatus } from '../../src/shared/messages';

const status = { agentName: 'scripted' } as PanelStatus;

export function senderHarness(): { t: Transcript; posted: HostToWebview[]; sender: TranscriptSender } {
  const t = new Transcript();
  const posted: HostToWebview[] = [];
  const sender = new TranscriptSender(
    t,
    (m) => posted.push(m),
    () => status,
  );
  t.onOp((op) => sender.onOp(op));
  t.onReplay((on) => (on ? sender.replayStarted() : sender.replayEnded()));
  return { t, posted, sender };
}
