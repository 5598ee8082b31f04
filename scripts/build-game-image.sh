#!/usr/bin/env bash
# Builds a game server image for the ECS fleet (linux/amd64, the tasks' architecture), pushes it
# to ECR, and adds a SOCI index (index manifest v2) so Fargate lazy-loads the image instead of
# pulling it whole before the game starts (docs/ecs-fleet.md "Spawn times").
#
# Usage: scripts/build-game-image.sh <build context> <account>.dkr.ecr.<region>.amazonaws.com/<repository>:<tag>
# Prints the image to give the stack (`gameImage`) or a configuration (`image`): <repository>:<tag>-soci.
#
# Needs: docker (buildx), the AWS CLI, and containerd with nerdctl and the soci-snapshotter CLI
# (Amazon Linux 2023: `sudo dnf install soci-snapshotter containerd nerdctl`; elsewhere see
# https://github.com/awslabs/soci-snapshotter/blob/main/docs/install.md). Run where you can sudo.
set -euo pipefail

if [[ $# -ne 2 ]]; then
  sed -n '2,9p' "$0" >&2
  exit 64
fi
context=$1
image=$2
if [[ ! $image =~ ^([0-9]{12})\.dkr\.ecr\.([a-z0-9-]+)\.amazonaws\.com/([a-z0-9._/-]+):([A-Za-z0-9_.-]+)$ ]]; then
  echo "expected <account>.dkr.ecr.<region>.amazonaws.com/<repository>:<tag>, got $image" >&2
  exit 64
fi
region=${BASH_REMATCH[2]}
registry=${image%%/*}
indexed="$image-soci"
# Layers under 10 MiB load faster whole than through an index: SOCI's own default.
min_layer_size=${SOCI_MIN_LAYER_SIZE:-10485760}

aws ecr get-login-password --region "$region" | docker login --username AWS --password-stdin "$registry"
aws ecr get-login-password --region "$region" | sudo nerdctl login --username AWS --password-stdin "$registry"

# --provenance=false: one plain image manifest (no attestation index), which SOCI converts as is.
docker buildx build --platform linux/amd64 --provenance=false --tag "$image" --push "$context"

sudo nerdctl pull --platform linux/amd64 "$image"
sudo nerdctl image convert --soci --soci-min-layer-size "$min_layer_size" --platform linux/amd64 "$image" "$indexed"
sudo nerdctl push --platform linux/amd64 "$indexed"

echo "$indexed"
