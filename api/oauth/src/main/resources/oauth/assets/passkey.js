// Passkey sign-in on Warden's login page: asks for a sign-in ceremony, lets the browser find a passkey for this
// site, and posts its answer with the page's form. Shown only where the browser can do it; the password form works
// without it.
(() => {
  const area = document.getElementById("passkey-area");
  if (!area || !window.PublicKeyCredential || typeof PublicKeyCredential.parseRequestOptionsFromJSON !== "function") {
    return;
  }
  area.hidden = false;
  const button = document.getElementById("passkey-sign-in");
  const error = document.getElementById("passkey-error");
  const fail = (text) => {
    error.textContent = text;
    error.hidden = false;
    button.disabled = false;
  };
  button.addEventListener("click", async () => {
    button.disabled = true;
    error.hidden = true;
    let options;
    try {
      const res = await fetch("/auth/passkeys/sign-in/options", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: "{}",
        credentials: "same-origin",
      });
      if (!res.ok) {
        fail("Passkey sign-in is not available right now. Try again in a minute, or use your password.");
        return;
      }
      options = await res.json();
    } catch (e) {
      fail("Warden could not be reached. Check your connection and try again.");
      return;
    }
    let credential;
    try {
      credential = await navigator.credentials.get({
        publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(options.publicKey),
      });
    } catch (e) {
      fail("No passkey was used. Try again, or sign in with your password.");
      return;
    }
    document.getElementById("passkey-ceremony").value = options.ceremony;
    document.getElementById("passkey-credential").value = JSON.stringify(credential.toJSON());
    document.getElementById("passkey-form").submit();
  });
})();
