// Package redacttest is the corpus of planted secrets that the tests of
// every place data leaves the machine run: export, sync, serve, mcp.
package redacttest

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"strings"
)

// Planted is a planted secret: what kind of secret it is, the secret,
// and a line that holds it as a transcript would. The secrets are made at
// random from their vendors' published shapes each run, so that none is a
// real one and none sits in this repository for a scanner to flag.
type Planted struct {
	Name   string // what it is
	Kind   string // the kind its mark names
	Secret string
	Line   string
}

// charsets of the shapes below.
const (
	upper32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	alnum   = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	urlsafe = alnum + "_-"
	hexLow  = "0123456789abcdef"
	lower   = "abcdefghijklmnopqrstuvwxyz"
	digits  = "0123456789"
)

func randomOf(r *rand.Rand, set string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = set[r.IntN(len(set))]
	}
	return string(b)
}

// Secrets is 25 kinds of secrets, in the places a transcript holds them:
// a command's output, an .env file read back, a config the model wrote,
// a URL in a shell command.
func Secrets(r *rand.Rand) []Planted {
	pick := func(set string, n int) string { return randomOf(r, set, n) }
	jwtPart := func(v string) string { return base64.RawURLEncoding.EncodeToString([]byte(v)) }
	rsaBody := func() string {
		var lines []string
		for range 8 {
			lines = append(lines, base64.StdEncoding.EncodeToString([]byte(pick(alnum, 48))))
		}
		return strings.Join(lines, "\n")
	}
	var ps []Planted
	add := func(name, kind, secret, line string) {
		ps = append(ps, Planted{Name: name, Kind: kind, Secret: secret, Line: fmt.Sprintf(line, secret)})
	}
	add("AWS access key id", "aws-access-token", "AKIA"+pick(upper32, 16), "aws_access_key_id = %s")
	add("GitHub token", "github-pat", "ghp_"+pick(alnum, 36), "export GH_TOKEN=%s")
	add("GitHub fine-grained token", "github-fine-grained-pat", "github_pat_"+pick(alnum+"_", 82), "token: %s")
	add("GitLab token", "gitlab-pat", "glpat-"+pick(urlsafe, 20), `git clone https://oauth2:%s@gitlab.com/g/p.git`)
	add("Slack bot token", "slack-bot-token", "xoxb-"+pick(digits, 12)+"-"+pick(digits, 13)+"-"+pick(alnum, 24), `{"slack": "%s"}`)
	add("Slack webhook", "slack-webhook-url", "https://hooks.slack.com/services/T"+pick(upper32, 10)+"/B"+pick(upper32, 10)+"/"+pick(alnum, 24), "curl -X POST %s -d @msg.json")
	add("Stripe secret key", "stripe-access-token", "sk_live_"+pick(alnum, 32), "Stripe.api_key = '%s'")
	add("OpenAI key", "openai-api-key", "sk-proj-"+pick(urlsafe, 58)+"T3BlbkFJ"+pick(urlsafe, 58), "OPENAI_API_KEY=%s")
	add("Anthropic key", "anthropic-api-key", "sk-ant-api03-"+pick(urlsafe, 93)+"AA", "ANTHROPIC_API_KEY=%s")
	add("Google API key", "gcp-api-key", "AIza"+pick(urlsafe, 35), `const firebaseConfig = { apiKey: "%s" };`)
	add("npm token", "npm-access-token", "npm_"+pick(alnum, 36), "//registry.npmjs.org/:_authToken=%s")
	add("SendGrid key", "sendgrid-api-token", "SG."+pick(urlsafe, 22)+"."+pick(urlsafe, 43), "SENDGRID_API_KEY=%s")
	add("Twilio API key", "twilio-api-key", "SK"+pick(hexLow, 32), "twilio api:core:keys:create -> sid %s")
	add("Hugging Face token", "huggingface-access-token", "hf_"+pick(lower+strings.ToUpper(lower), 34), "huggingface-cli login --token %s")
	add("DigitalOcean token", "digitalocean-pat", "dop_v1_"+pick(hexLow, 64), "doctl auth init -t %s")
	add("Shopify token", "shopify-access-token", "shpat_"+pick(hexLow, 32), "X-Shopify-Access-Token: %s")
	add("PyPI token", "pypi-upload-token", "pypi-AgEIcHlwaS5vcmc"+pick(urlsafe, 60), "password = %s")
	add("Databricks token", "databricks-api-token", "dapi"+pick(hexLow, 32), "DATABRICKS_TOKEN=%s")
	add("JSON web token", "jwt", "eyJ"+jwtPart(`{"alg":"HS256","typ":"JWT"}`)[3:]+"."+jwtPart(`{"sub":"`+pick(digits, 10)+`","name":"`+pick(lower, 8)+`","iat":1516239022}`)+"."+pick(urlsafe, 43), "Authorization: Bearer %s")
	add("RSA private key", "private-key", "-----BEGIN RSA PRIVATE KEY-----\n"+rsaBody()+"\n-----END RSA PRIVATE KEY-----", "$ cat ~/.ssh/id_rsa\n%s\n")
	add("OpenSSH private key", "private-key", "-----BEGIN OPENSSH PRIVATE KEY-----\n"+rsaBody()+"\n-----END OPENSSH PRIVATE KEY-----", "%s")
	add("Vault token", "vault-service-token", "hvs."+pick(urlsafe, 95), "VAULT_ADDR=https://vault:8200 vault login %s")
	add("password in a URL", "url-password", "Zq"+pick(alnum, 14)+"9", "psql postgres://admin:%s@db.internal:5432/app")
	add(".env password", "assigned-secret", "Xy9"+pick(alnum, 21), "DATABASE_PASSWORD=%s")
	add("client secret in JSON", "assigned-secret", pick(alnum, 20)+"7q", `{"client_secret": "%s", "client_id": "app"}`)
	return ps
}
