// Zulip's desktop app shows this page when a sign-in button is pressed inside it (its
// User-Agent names ZulipElectron). The page makes a fresh AES-GCM key, opens the same sign-in
// in the system browser with the key as `desktop_flow_otp`, and waits for the encrypted login
// token the browser ends with: from the app's clipboard watcher (electron_bridge.decrypt_clipboard)
// or pasted by hand. Decrypted, the token opens this organization's session in the app.
(async () => {
  const form = document.getElementById('desktop-token-form');
  const input = document.getElementById('token');
  const badToken = document.getElementById('bad-token');
  const done = document.getElementById('done');
  const hex = (bytes) => [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
  const unhex = (text) =>
    new Uint8Array((text.match(/[0-9a-f]{2}/gi) ?? []).map((b) => parseInt(b, 16)));

  async function pastedByHand() {
    const key = await crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, true, [
      'decrypt',
    ]);
    const raw = new Uint8Array(await crypto.subtle.exportKey('raw', key));
    const pasted = new Promise((resolve) => {
      input.addEventListener('input', async () => {
        badToken.hidden = true;
        const data = unhex(input.value.trim());
        try {
          const plain = await crypto.subtle.decrypt(
            { name: 'AES-GCM', iv: data.slice(0, 12) },
            key,
            data.slice(12),
          );
          resolve(new TextDecoder().decode(plain));
        } catch {
          // Not (yet) a whole token for this key: wait for more input.
        }
      });
    });
    return { key: raw, pasted };
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    badToken.hidden = false;
  });
  input.focus();
  const bridge = window.electron_bridge;
  const { key, pasted } =
    bridge && bridge.decrypt_clipboard ? bridge.decrypt_clipboard(1) : await pastedByHand();
  const search = window.location.search ? `${window.location.search}&` : '?';
  window.open(`${search}desktop_flow_otp=${hex(key)}`, '_blank');
  const token = await pasted;
  form.hidden = true;
  done.hidden = false;
  window.location.href = `/accounts/login/subdomain/${encodeURIComponent(token)}`;
})();
