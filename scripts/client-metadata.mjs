// Writes the OAuth Client ID Metadata Document for a deployment of Loopscope at BASE_URL (the
// folder that holds index.html, with its trailing slash), to put next to index.html as
// client-metadata.json. The page uses it only if its client_id is the URL it is served at.
//
//   node scripts/client-metadata.mjs https://you.github.io/loopscope/ > dist/client-metadata.json
const base = process.argv[2];
if (!base || !/^https:\/\/[^/]+\/(.*\/)?$/.test(base)) {
  console.error("usage: node scripts/client-metadata.mjs https://host/folder/   (https, ending in /)");
  process.exit(2);
}
const document = {
  client_id: `${base}client-metadata.json`,
  client_name: "Loopscope",
  client_uri: base,
  redirect_uris: [`${base}auth-callback.html`],
  grant_types: ["authorization_code", "refresh_token"],
  response_types: ["code"],
  token_endpoint_auth_method: "none",
  application_type: "web",
};
console.log(JSON.stringify(document, null, 2));
