# Homebrew formula for the `authflow` command, from the release archives.
# scripts/release (and the release workflow, over every archive) rewrites the
# version and the checksums; packaging/homebrew/update-formula does it.
class Authflow < Formula
  desc "OAuth 2.0 and OpenID Connect sign-in from the terminal"
  homepage "https://github.com/authflow/authflow"
  version "0.1.0"
  license "Apache-2.0"

  on_macos do
    url "https://github.com/authflow/authflow/releases/download/v0.1.0/authflow-0.1.0-macos-universal.tar.gz"
    sha256 "0000000000000000000000000000000000000000000000000000000000000000"
  end

  on_linux do
    on_intel do
      url "https://github.com/authflow/authflow/releases/download/v0.1.0/authflow-0.1.0-linux-x86_64.tar.gz"
      sha256 "eac12119d9544c6b0238362084c3ec863dc9dd170cc5e92a1a3605a407814650"
    end
    on_arm do
      url "https://github.com/authflow/authflow/releases/download/v0.1.0/authflow-0.1.0-linux-aarch64.tar.gz"
      sha256 "0000000000000000000000000000000000000000000000000000000000000000"
    end
  end

  def install
    bin.install "bin/authflow"
    bin.install_symlink "authflow" => "docker-credential-authflow"
    # The PostgreSQL store's helper, which authflow finds at ../libexec/authflow.
    (libexec/"authflow").install "libexec/authflow/authflow-postgresql"
    bash_completion.install "share/bash-completion/completions/authflow"
    zsh_completion.install "share/zsh/site-functions/_authflow"
    fish_completion.install "share/fish/vendor_completions.d/authflow.fish"
    man1.install Dir["share/man/man1/*.1"]
  end

  test do
    assert_equal version.to_s, shell_output("#{bin}/authflow --version").strip
    assert_match "docker-credential-authflow (authflow) #{version}",
                 shell_output("#{bin}/docker-credential-authflow version")
    # The whole sign-in against the embedded provider, on 127.0.0.1 only.
    assert_match(/^total [0-9.]+ ms$/, shell_output("#{bin}/authflow demo"))
    assert_path_exists man1/"authflow-login.1"
    assert_match "keeps authflow's sessions in PostgreSQL",
                 shell_output("#{libexec}/authflow/authflow-postgresql --help 2>&1")
    assert_match "authflow", shell_output("#{bin}/authflow --generate-completion-script bash")
  end
end
